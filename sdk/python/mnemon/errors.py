"""mnemon's exceptions: every failed call raises a MnemonError.

An API answer that is not a success raises the subclass generated for its
problem code (mnemon._generated.ERRORS: NotFoundError, InvalidRequestError,
RateLimitedError, ...); a code this client does not know raises MnemonError
itself. A call that got no answer at all (refused connection, timeout)
raises TransportError.
"""
from __future__ import annotations

from typing import Any, Dict, Optional


class MnemonError(Exception):
    """A failed mnemon call: the problem+json answer, typed.

    Attributes:
        status: the HTTP status (0 when no answer came).
        code: the problem's stable code, e.g. "not_found" ("unknown" when the
            answer was not a problem document).
        title: the problem's short title.
        detail: what exactly was wrong, safe to show.
        field: the request field the problem concerns, when the server names one.
        request_id: the id the server's log line carries.
    """

    #: The problem code a generated subclass stands for.
    code_name = ""

    def __init__(
        self,
        status: int,
        code: str,
        title: str = "",
        detail: str = "",
        field: Optional[str] = None,
        request_id: str = "",
        problem: Optional[Dict[str, Any]] = None,
    ) -> None:
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.field = field
        self.request_id = request_id
        self.problem: Dict[str, Any] = dict(problem or {})
        text = title or "request failed"
        if detail:
            text += ": " + detail
        super().__init__(f"{text} ({code}, HTTP {status})" if status else f"{text} ({code})")


class TransportError(MnemonError):
    """No answer came: the connection failed or the call timed out (after any retries)."""

    def __init__(self, detail: str) -> None:
        super().__init__(0, "transport", "no answer from mnemon", detail)
