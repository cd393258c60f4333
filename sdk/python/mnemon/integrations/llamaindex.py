"""A LlamaIndex memory block kept in mnemon.

    from llama_index.core.memory import Memory
    from mnemon.integrations.llamaindex import MnemonMemoryBlock

    memory = Memory.from_defaults(session_id="chat-7", memory_blocks=[MnemonMemoryBlock(mnemon.Client(), "chat-7")])

A LlamaIndex memory block (``BaseMemoryBlock``: ``_aget(messages)`` gives
the block's text for the chat so far, ``_aput(messages)`` receives the
messages flushed out of short-term memory). ``MnemonMemoryBlock`` answers
``_aget`` with the memory mnemon packs for the latest user message, and
captures what ``_aput`` receives as episodes of the session, so facts said
in one chat come back in the next. The block is a ``BaseMemoryBlock`` when
``llama_index`` is installed; its logic is in ``MnemonBlockCore``, which
takes any messages with a ``role`` (a string or an enum with ``.value``)
and ``content`` (or ``blocks`` with text).
"""
from __future__ import annotations

import asyncio
from typing import Any, List, Optional

from ..client import Client
from ._common import SessionMemory, event, kind_of, text_of


def _role(message: Any) -> str:
    role = getattr(message, "role", "")
    return str(getattr(role, "value", role) or "")


def _text(message: Any) -> str:
    content = getattr(message, "content", None)
    if content:
        return text_of(content)
    return text_of(getattr(message, "blocks", None))


class MnemonBlockCore:
    """The block's logic, without LlamaIndex."""

    def __init__(self, client: Client, session_id: str, *, token_budget: int = 600, **scope: Optional[str]) -> None:
        self.memory = SessionMemory(client, session_id, token_budget=token_budget, **scope)

    def get(self, messages: Optional[List[Any]] = None) -> str:
        """The memory packed for the latest user message ("" when none)."""
        for m in reversed(messages or []):
            if _role(m) == "user" and _text(m).strip():
                return self.memory.context(_text(m))
        return ""

    def put(self, messages: List[Any]) -> None:
        """Captures the messages (system messages left out) as episodes."""
        events = []
        for m in messages:
            role, text = _role(m), _text(m)
            if role == "system" or not text.strip():
                continue
            events.append(event(kind_of(role), text, "user" if role == "user" else "agent"))
        self.memory.capture(events)


try:
    from llama_index.core.memory import BaseMemoryBlock as _BlockBase

    HAVE_LLAMAINDEX = True
except ImportError:  # pragma: no cover - depends on the environment
    _BlockBase = object  # type: ignore[assignment,misc]
    HAVE_LLAMAINDEX = False


class MnemonMemoryBlock(_BlockBase):  # type: ignore[misc,valid-type]
    """A LlamaIndex memory block over MnemonBlockCore (needs llama-index-core)."""

    def __init__(self, client: Client, session_id: str, *, name: str = "mnemon", priority: int = 1, **options: Any) -> None:
        if not HAVE_LLAMAINDEX:
            raise ImportError("mnemon: MnemonMemoryBlock needs llama-index-core; MnemonBlockCore works without it")
        super().__init__(name=name, priority=priority)  # a pydantic model
        object.__setattr__(self, "_core", MnemonBlockCore(client, session_id, **options))

    async def _aget(self, messages: Optional[List[Any]] = None, **kwargs: Any) -> str:
        return await asyncio.to_thread(self._core.get, messages)  # type: ignore[attr-defined]

    async def _aput(self, messages: List[Any]) -> None:
        await asyncio.to_thread(self._core.put, messages)  # type: ignore[attr-defined]
