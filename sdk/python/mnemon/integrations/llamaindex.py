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
from ._common import SessionMemory, event, kind_of, optional_import, text_of


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


_li = optional_import("llama_index.core.memory", "BaseMemoryBlock")
HAVE_LLAMAINDEX = _li is not None
_BlockBase: Any = _li[0] if _li else object


class MnemonMemoryBlock(_BlockBase):  # type: ignore[misc]
    """A LlamaIndex memory block over MnemonBlockCore (needs llama-index-core)."""

    def __init__(self, client: Client, session_id: str, *, name: str = "mnemon", priority: int = 1, **options: Any) -> None:
        if not HAVE_LLAMAINDEX:
            raise ImportError("mnemon: MnemonMemoryBlock needs llama-index-core; MnemonBlockCore works without it")
        super().__init__(name=name, priority=priority)  # a pydantic model
        object.__setattr__(self, "_core", MnemonBlockCore(client, session_id, **options))

    @property
    def core(self) -> MnemonBlockCore:
        core: MnemonBlockCore = object.__getattribute__(self, "_core")
        return core

    async def _aget(self, messages: Optional[List[Any]] = None, **kwargs: Any) -> str:
        return await asyncio.to_thread(self.core.get, messages)

    async def _aput(self, messages: List[Any]) -> None:
        await asyncio.to_thread(self.core.put, messages)
