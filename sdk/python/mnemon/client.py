"""The sync and asyncio clients: one HTTP implementation on urllib.request.

The typed methods come from mnemon._generated (one per API operation,
written by scripts/gen.py from docs/openapi.json); this module adds what a
document cannot say: authentication, timeouts, retries of idempotent calls
and typed errors. AsyncClient runs the same sync core in a worker thread
(asyncio.to_thread), so both clients behave identically.
"""
from __future__ import annotations

import asyncio
import email.utils
import http.client
import json
import os
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional

from ._generated import ERRORS, OPERATIONS, AsyncOperations, Operations
from .errors import MnemonError, TransportError

if TYPE_CHECKING:
    from .agent import Agent, AsyncAgent, AsyncTask, Task

# Where `mnemon serve` listens by default (cli.DefaultAddr).
DEFAULT_BASE_URL = "http://127.0.0.1:7077"

# Answers worth another try of an idempotent call: the server was busy or
# briefly away, and asking again cannot apply anything twice.
RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})

# POSTs that are safe to send twice, besides every GET and DELETE (forgetting
# twice changes nothing). retrieve is a read (a repeat at worst leaves one
# more trace nobody refers to); the API documents feedback ("repeating a
# judgement changes nothing") and procedure promotion ("Idempotent.") as
# idempotent. A capture, a remember or an import stores something and is
# sent exactly once, so nothing is written twice.
IDEMPOTENT_POSTS = frozenset({"retrieve", "sendFeedback", "postV1ProceduresPromote"})

# The longest wait a Retry-After header can impose, in seconds.
MAX_RETRY_AFTER = 30.0
# The longest backoff between two attempts without a Retry-After.
MAX_BACKOFF = 2.0


class _Core:
    """Builds requests, sends them with retries and decodes the answers."""

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str],
        timeout: float,
        retries: int,
        namespace: Optional[str],
        backoff: float,
    ) -> None:
        if not base_url:
            raise ValueError("mnemon: base_url is required, e.g. http://127.0.0.1:7077")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("MNEMON_API_KEY") or None
        self.timeout = timeout
        self.retries = max(0, retries)
        self.namespace = namespace
        self.backoff = backoff

    def call(self, operation_id: str, path: Mapping[str, str], query: Mapping[str, Any], body: Any) -> Any:
        op = OPERATIONS.get(operation_id)
        if op is None:
            raise ValueError(f"mnemon: unknown operation {operation_id!r}")
        url_path = op.path
        for name in op.path_params:
            value = path.get(name)
            if value is None or value == "":
                raise ValueError(f"mnemon: {operation_id} needs {name}")
            url_path = url_path.replace("{" + name + "}", urllib.parse.quote(str(value), safe=""))
        params = []
        for name in op.query_params:
            value = query.get(name)
            if value is None:
                continue
            params.append((name, ("true" if value else "false") if isinstance(value, bool) else str(value)))
        url = self.base_url + url_path + ("?" + urllib.parse.urlencode(params) if params else "")

        headers = {"Accept": "application/json, application/problem+json, */*", "User-Agent": "mnemon-python"}
        if self.api_key:
            headers["Authorization"] = "Bearer " + self.api_key
        if self.namespace:
            # With a key the key decides the namespace; naming the same one is
            # fine, naming another is refused (403), which is what the caller asked.
            headers["X-Mnemon-Namespace"] = self.namespace
        data: Optional[bytes] = None
        if op.request == "json":
            headers["Content-Type"] = "application/json"
            data = json.dumps(body if body is not None else {}).encode("utf-8")
        elif op.request != "none":
            headers["Content-Type"] = op.request
            data = (body or "").encode("utf-8") if isinstance(body, str) else bytes(body or b"")

        idempotent = op.method in ("GET", "DELETE", "HEAD") or operation_id in IDEMPOTENT_POSTS
        attempts = self.retries + 1 if idempotent else 1
        attempt = 0
        while True:
            attempt += 1
            request = urllib.request.Request(url, data=data, headers=headers, method=op.method)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as res:
                    raw = res.read()
                    if op.response == "json":
                        return json.loads(raw.decode("utf-8")) if raw else None
                    if op.response == "none":
                        return None
                    return raw.decode("utf-8")
            except urllib.error.HTTPError as err:
                raw = err.read()
                retry_after = err.headers.get("Retry-After") if err.headers else None
                err.close()
                if attempt < attempts and err.code in RETRYABLE_STATUSES:
                    time.sleep(self._delay(attempt, retry_after))
                    continue
                raise _error_of(err.code, raw, err.headers.get("X-Request-Id", "") if err.headers else "") from None
            except (urllib.error.URLError, OSError, socket.timeout, http.client.HTTPException) as err:
                # A refused or dropped connection, a broken answer or a timeout.
                if attempt < attempts:
                    time.sleep(self._delay(attempt, None))
                    continue
                reason = getattr(err, "reason", err)
                raise TransportError(f"{op.method} {url_path}: {reason}") from err

    def _delay(self, attempt: int, retry_after: Optional[str]) -> float:
        """Seconds to wait before the next attempt: the server's Retry-After
        when it sent one, else doubling backoff with jitter (clients that
        failed together retry apart)."""
        wait = _parse_retry_after(retry_after)
        if wait is not None:
            return min(wait, MAX_RETRY_AFTER)
        base: float = min(self.backoff * 2.0 ** (attempt - 1), MAX_BACKOFF)
        return base / 2 + random.random() * base / 2


def _parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Retry-After as seconds: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, float(when.timestamp()) - time.time())


def _error_of(status: int, raw: bytes, request_id: str) -> MnemonError:
    """The exception for a non-success answer: the class of its problem code,
    or MnemonError itself for a code this client does not know."""
    text = raw.decode("utf-8", errors="replace")
    try:
        problem = json.loads(text)
        if not isinstance(problem, dict):
            raise ValueError("not an object")
    except ValueError:
        problem = {"title": "request failed", "detail": text[:200], "status": status, "code": "unknown"}
    code = str(problem.get("code") or "unknown")
    cls = ERRORS.get(code, MnemonError)
    return cls(
        status=int(problem.get("status") or status),
        code=code,
        title=str(problem.get("title") or ""),
        detail=str(problem.get("detail") or ""),
        field=problem.get("field"),
        request_id=str(problem.get("request_id") or request_id or ""),
        problem=problem,
    )


class Client(Operations):
    """mnemon's HTTP API from Python, synchronous.

    Every API operation is a typed method (health, remember, capture,
    retrieve, feedback, list_memories, get_memory, forget, explain,
    get_trace, export, ...); request and response bodies are TypedDicts
    generated from the API document (mnemon.RetrieveRequest, ...). A failed call raises a MnemonError subclass.

    Args:
        base_url: where `mnemon serve` listens (default: its default address).
        api_key: a key from `mnemon keys create`; None reads $MNEMON_API_KEY
            (no key at all: open mode, loopback only).
        timeout: seconds each attempt may take.
        retries: further attempts of an idempotent call after a network
            error, a timeout or a 429/502/503/504 answer.
        namespace: the namespace in open mode (X-Mnemon-Namespace); a key
            fixes its own.
        backoff: the first wait between attempts in seconds, doubling up to
            2 s; a Retry-After header wins (up to 30 s).
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        api_key: Optional[str] = None,
        timeout: float = 10.0,
        retries: int = 2,
        namespace: Optional[str] = None,
        backoff: float = 0.1,
    ) -> None:
        self._core = _Core(base_url, api_key, timeout, retries, namespace, backoff)

    @property
    def base_url(self) -> str:
        return self._core.base_url

    def _call(self, operation_id: str, path: Dict[str, str], query: Dict[str, Any], body: Any) -> Any:
        return self._core.call(operation_id, path, query, body)

    def agent(self, **options: Any) -> "Agent":
        """An Agent (the PreTask/PostTask wrapper) on this client; options as Agent's."""
        from .agent import Agent

        return Agent(self, **options)

    def task(self, prompt: str, **options: Any) -> "Task":
        """One task with memory, as a context manager::

            with client.task(prompt, agent_id="coder") as task:
                output = run_agent(task.context + "\\n\\n" + prompt)
                task.output = output

        Entering retrieves the packed memories for the prompt; leaving
        captures the session (a failure when the block raised). Options are
        Agent's (agent_id, user_id, project_id, session_id, task_type,
        token_budget, limit, feedback).
        """
        return self.agent(**options).task(prompt)


class AsyncClient(AsyncOperations):
    """mnemon's HTTP API for asyncio: Client's methods as coroutines.

    Each call runs Client's sync core in a worker thread (asyncio.to_thread),
    with the same arguments, retries and errors.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        api_key: Optional[str] = None,
        timeout: float = 10.0,
        retries: int = 2,
        namespace: Optional[str] = None,
        backoff: float = 0.1,
    ) -> None:
        self._core = _Core(base_url, api_key, timeout, retries, namespace, backoff)

    @property
    def base_url(self) -> str:
        return self._core.base_url

    async def _call(self, operation_id: str, path: Dict[str, str], query: Dict[str, Any], body: Any) -> Any:
        return await asyncio.to_thread(self._core.call, operation_id, path, query, body)

    def agent(self, **options: Any) -> "AsyncAgent":
        """An AsyncAgent on this client; options as Agent's."""
        from .agent import AsyncAgent

        return AsyncAgent(self, **options)

    def task(self, prompt: str, **options: Any) -> "AsyncTask":
        """One task with memory, as an async context manager (see Client.task)."""
        return self.agent(**options).task(prompt)
