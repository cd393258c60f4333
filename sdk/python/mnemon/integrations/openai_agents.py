"""The OpenAI Agents SDK session interface, kept in mnemon.

    from agents import Agent, Runner
    from mnemon.integrations.openai_agents import MnemonSession

    session = MnemonSession(mnemon.Client(), "support-42", user_id="ana")
    result = await Runner.run(agent, "Where did we leave the refund?", session=session)

The SDK's ``Session`` protocol (``session_id``, ``get_items``, ``add_items``,
``pop_item``, ``clear_session``; all coroutines) is implemented
structurally, so this module does not import ``agents``. Each added item is
captured as an episode of the session (messages by role; tool calls and
results as tool_call / tool_result) with the item itself in the episode's
metadata, so ``get_items`` gives the items back as they were added, in a
later process too. The episodes are memory: a later session's prompts
recall them (``instructions_for`` packs what matters for a prompt).

mnemon keeps history: ``pop_item`` and ``clear_session`` change what this
session hands the SDK, not what mnemon remembers (forget a memory with
``Client.forget``). Calls to the server run in a worker thread so the event
loop is not blocked.
"""
from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List, Optional

from ..client import Client
from ._common import ITEM_KEY, SessionMemory, event, kind_of, text_of

#: An input item of the SDK (TResponseInputItem): a dict.
Item = Dict[str, Any]


def item_to_event(item: Item) -> Any:
    """The episode an SDK input item becomes: messages ({"role", "content"})
    by role, function calls and their outputs as tool events; the item
    itself goes in the metadata."""
    typ = item.get("type")
    if typ == "function_call":
        content = "%s(%s)" % (item.get("name", "tool"), item.get("arguments", ""))
        return event("tool_call", content, "agent", item)
    if typ == "function_call_output":
        return event("tool_result", text_of(item.get("output")) or "(no output)", "tool", item)
    role = str(item.get("role") or "")
    if role:
        text = text_of(item.get("content")) or "(no text)"
        return event(kind_of(role), text, "user" if role == "user" else "agent", item)
    return event("observation", json.dumps(item, default=str)[:2000], "agent", item)


class MnemonSession:
    """An OpenAI Agents SDK session whose items live in mnemon."""

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
        self.session_id = session_id
        self.memory = SessionMemory(
            client, session_id, agent_id=agent_id, user_id=user_id, project_id=project_id, token_budget=token_budget
        )
        self._items: Optional[List[Item]] = None

    def _load(self) -> List[Item]:
        if self._items is None:
            items: List[Item] = []
            for ep in self.memory.episodes():
                raw = (ep.get("metadata") or {}).get(ITEM_KEY)
                if raw:
                    items.append(json.loads(raw))
                else:  # captured by something else: a message of its speaker
                    role = "user" if ep.get("kind") == "user_message" else "assistant"
                    items.append({"role": role, "content": ep.get("content", "")})
            self._items = items
        return self._items

    def get_items_sync(self, limit: Optional[int] = None) -> List[Item]:
        items = list(self._load())
        return items[-limit:] if limit else items

    def add_items_sync(self, items: List[Item]) -> None:
        history = self._load()
        if items:
            self.memory.capture([item_to_event(i) for i in items])
            history.extend(items)

    def pop_item_sync(self) -> Optional[Item]:
        history = self._load()
        return history.pop() if history else None

    def clear_session_sync(self) -> None:
        self._items = []

    async def get_items(self, limit: Optional[int] = None) -> List[Item]:
        """The session's items, oldest first; the last ``limit`` when given."""
        return await asyncio.to_thread(self.get_items_sync, limit)

    async def add_items(self, items: List[Item]) -> None:
        """Appends items, capturing them as episodes of the session."""
        await asyncio.to_thread(self.add_items_sync, items)

    async def pop_item(self) -> Optional[Item]:
        """Removes and returns the latest item of this session's history."""
        return await asyncio.to_thread(self.pop_item_sync)

    async def clear_session(self) -> None:
        """Starts this session's history afresh (mnemon keeps the episodes)."""
        await asyncio.to_thread(self.clear_session_sync)

    def instructions_for(self, prompt: str, base: str = "") -> str:
        """base instructions followed by the memory packed for prompt."""
        ctx = self.memory.context(prompt)
        if not ctx:
            return base
        return (base + "\n\n" if base else "") + "What you remember (mnemon):\n" + ctx
