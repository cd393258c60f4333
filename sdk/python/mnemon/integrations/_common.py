"""What the adapters share: session history kept as mnemon episodes."""
from __future__ import annotations

import importlib
import json
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional

from .._generated import CaptureRequest, EventInput, RetrieveRequest
from ..client import Client
from ..errors import MnemonError

#: The server's limits (bytes): a retrieval query and an event's content.
MAX_QUERY_BYTES = 4096
MAX_CONTENT_BYTES = 64 << 10

#: The metadata key holding an item as the framework gave it (JSON), so a
#: session's history comes back exactly.
ITEM_KEY = "item"

_KIND_OF_ROLE = {
    "user": "user_message",
    "human": "user_message",
    "assistant": "agent_message",
    "ai": "agent_message",
    "model": "agent_message",
    "system": "observation",
    "developer": "observation",
    "tool": "tool_result",
    "function": "tool_result",
}


def optional_import(module: str, *names: str) -> Optional[List[Any]]:
    """The named attributes of module, or None when it is not installed
    (imported by name so that type checkers do not need the framework)."""
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return None
    return [getattr(mod, n) for n in names]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def parse_time(t: str) -> datetime:
    """A time the server wrote (RFC 3339) as a time; the epoch when absent.

    Sort by this, never by the text: the server cuts the fraction's trailing
    zeros, so "…10.12345Z" (earlier) sorts after "…10.123451Z" as text."""
    try:
        d = datetime.fromisoformat(t.replace("Z", "+00:00"))
        return d if d.tzinfo else d.replace(tzinfo=timezone.utc)
    except ValueError:
        return datetime.fromtimestamp(0, timezone.utc)


def cut(s: str, n: int) -> str:
    """s shortened to at most n UTF-8 bytes without splitting a character."""
    b = s.encode("utf-8")
    if len(b) <= n:
        return s
    return b[:n].decode("utf-8", errors="ignore")


def kind_of(role: str) -> str:
    """The episode kind for a message role (unknown roles are observations)."""
    return _KIND_OF_ROLE.get(role.lower(), "observation")


def text_of(content: Any) -> str:
    """The text of a message content: a string, or the text parts of a list
    of parts ({"type": "input_text"|"output_text"|"text", "text": ...})."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for p in content:
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, dict) and isinstance(p.get("text"), str):
                parts.append(p["text"])
            elif hasattr(p, "text") and isinstance(getattr(p, "text"), str):
                parts.append(getattr(p, "text"))
        return "\n".join(x for x in parts if x)
    return str(content)


def event(kind: str, content: str, speaker: str, item: Optional[Any] = None) -> EventInput:
    ev: EventInput = {"kind": kind, "content": cut(content, MAX_CONTENT_BYTES), "occurred_at": now(), "speaker": speaker}
    if item is not None:
        ev["metadata"] = {ITEM_KEY: json.dumps(item, separators=(",", ":"), default=str)}
    return ev


class SessionMemory:
    """One conversation stored in mnemon: its turns are episodes of the
    session (recalled from later sessions too), and ``context(query)`` packs
    what mnemon knows for a prompt. Scope ids (agent_id, user_id,
    project_id) go on every call."""

    def __init__(
        self,
        client: Client,
        session_id: str,
        *,
        agent_id: Optional[str] = None,
        user_id: Optional[str] = None,
        project_id: Optional[str] = None,
        token_budget: int = 0,
    ) -> None:
        if not session_id:
            raise ValueError("mnemon: a session needs a session_id")
        self.client = client
        self.session_id = session_id
        self.scope: Dict[str, str] = {}
        for k, v in (("agent_id", agent_id), ("user_id", user_id), ("project_id", project_id)):
            if v:
                self.scope[k] = v
        self.token_budget = token_budget

    def capture(self, events: List[EventInput]) -> List[str]:
        """Stores events as episodes of the session; returns their ids."""
        if not events:
            return []
        req: CaptureRequest = {"session_id": self.session_id, "events": events}
        for k, v in self.scope.items():
            req[k] = v  # type: ignore[literal-required]
        # wait: the turn is recallable as soon as this returns.
        return list(self.client.capture(req, wait=True)["episode_ids"])

    def context(self, query: str, token_budget: Optional[int] = None) -> str:
        """The packed memory for query ("" while nothing is known)."""
        if not query.strip():
            return ""
        req: RetrieveRequest = {"query": cut(query, MAX_QUERY_BYTES), "session_id": self.session_id}
        budget = self.token_budget if token_budget is None else token_budget
        if budget:
            req["token_budget"] = budget
        for k, v in self.scope.items():
            req[k] = v  # type: ignore[literal-required]
        try:
            return self.client.retrieve(req)["context"]
        except MnemonError as err:
            if err.code == "namespace_not_found":
                return ""
            raise

    def episodes(self) -> List[Dict[str, Any]]:
        """The session's episodes in the order they happened, from the
        namespace's export (one pass over the namespace: fine for a personal
        store, slow for a large shared one)."""
        out: List[Dict[str, Any]] = []
        try:
            export = self.client.export()
        except MnemonError as err:
            if err.code == "namespace_not_found":
                return out
            raise
        for line in export.splitlines():
            if not line.startswith('{"record":"episode"'):
                continue
            ep = json.loads(line)["episode"]
            scope = ep.get("scope") or {}
            if scope.get("session_id") != self.session_id:
                continue
            if any(scope.get(k, "") != v for k, v in self.scope.items()):
                continue
            out.append(ep)
        out.sort(key=lambda e: (parse_time(e.get("occurred_at") or ""), e.get("id", "")))
        return out
