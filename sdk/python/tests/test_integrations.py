"""The framework adapters' framework-free parts against a real `mnemon serve`,
and the example agent loop. The frameworks (openai-agents, langchain-core,
langgraph, llama-index-core) are not installed here: their thin subclasses
are not exercised (see the README)."""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import unittest
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Dict, List

from support import REPO, MnemonServer

import mnemon
from mnemon.integrations.langchain import MessageCodec, MnemonChatMessageHistory, MnemonKeyValueStore
from mnemon.integrations.llamaindex import MnemonBlockCore
from mnemon.integrations.openai_agents import MnemonSession

server: MnemonServer


def setUpModule() -> None:
    global server
    server = MnemonServer()


def tearDownModule() -> None:
    server.stop()


def client(ns: str) -> mnemon.Client:
    return mnemon.Client(server.url, namespace=ns, api_key="")


class ParseTimeTest(unittest.TestCase):
    def test_times_sort_as_times_not_as_text(self) -> None:
        # The server cuts a fraction's trailing zeros: as text the earlier
        # of these sorts last (a session's items came back out of order).
        from mnemon.integrations._common import parse_time

        earlier, later = "2026-12-07T05:00:10.12345Z", "2026-12-07T05:00:10.123451Z"
        self.assertGreater(earlier, later)
        self.assertLess(parse_time(earlier), parse_time(later))
        self.assertLess(parse_time(""), parse_time(earlier))
        self.assertEqual(parse_time("2026-12-07T05:00:10.123456789Z"), parse_time("2026-12-07T05:00:10.123456Z"))


class OpenAIAgentsSessionTest(unittest.TestCase):
    def test_items_round_trip_across_processes(self) -> None:
        c = client("py-oai-session")
        items: List[Dict[str, Any]] = [
            {"role": "user", "content": "Book the review room for Friday at 10."},
            {"type": "function_call", "call_id": "c1", "name": "book_room", "arguments": "{\"day\": \"friday\"}"},
            {"type": "function_call_output", "call_id": "c1", "output": "booked: room 4B"},
            {"role": "assistant", "content": [{"type": "output_text", "text": "Room 4B is booked for Friday at 10."}]},
        ]
        s = MnemonSession(c, "oai-1", user_id="ana")

        async def first() -> None:
            self.assertEqual(await s.get_items(), [])
            await s.add_items(items[:2])
            await s.add_items(items[2:])
            self.assertEqual(await s.get_items(limit=1), items[-1:])

        asyncio.run(first())
        # A new process: the items come back from the server as they were.
        again = MnemonSession(c, "oai-1", user_id="ana")
        self.assertEqual(asyncio.run(again.get_items()), items)
        self.assertEqual(asyncio.run(again.pop_item()), items[-1])
        self.assertEqual(len(asyncio.run(again.get_items())), 3)
        asyncio.run(again.clear_session())
        self.assertEqual(asyncio.run(again.get_items()), [])
        # Another user's session of the same id is another conversation.
        self.assertEqual(asyncio.run(MnemonSession(c, "oai-1", user_id="bo").get_items()), [])
        # What was said is memory for later prompts of the same user.
        later = MnemonSession(c, "oai-2", user_id="ana")
        self.assertIn("4B", later.instructions_for("Which room did we book for the review?", "You are helpful."))
        self.assertEqual(MnemonSession(client("py-oai-empty"), "x").instructions_for("anything", "base"), "base")


@dataclass
class FakeMessage:
    """A stand-in with LangChain's message shape (type, content)."""

    type: str
    content: Any
    additional_kwargs: Dict[str, Any] = field(default_factory=dict)


def codec() -> MessageCodec:
    return MessageCodec(
        to_dict=lambda m: {"type": m.type, "data": {"content": m.content, "type": m.type}},
        from_dicts=lambda ds: [FakeMessage(d["type"], d["data"]["content"]) for d in ds],
    )


class LangChainTest(unittest.TestCase):
    def test_chat_history(self) -> None:
        c = client("py-lc-history")
        h = MnemonChatMessageHistory(c, "lc-1", codec=codec())
        h.add_messages([FakeMessage("human", "My build runs with bazel 7."), FakeMessage("ai", "Got it: bazel 7.")])
        h.add_message(FakeMessage("tool", [{"type": "text", "text": "bazel version: 7.1.0"}]))
        restored = MnemonChatMessageHistory(c, "lc-1", codec=codec()).messages
        self.assertEqual([(m.type, m.content) for m in restored], [(m.type, m.content) for m in h.messages])
        self.assertEqual(restored[0].content, "My build runs with bazel 7.")
        self.assertIn("bazel 7", MnemonChatMessageHistory(c, "lc-2", codec=codec()).context("Which bazel version do I use?"))
        h.clear()
        self.assertEqual(h.messages, [])
        # Episodes captured by something else come back as human/ai messages.
        c.capture({"session_id": "lc-3", "events": [{"kind": "user_message", "content": "hello there", "occurred_at": "2026-01-02T03:04:05Z"}]})
        self.assertEqual([(m.type, m.content) for m in MnemonChatMessageHistory(c, "lc-3", codec=codec()).messages], [("human", "hello there")])

    def test_key_value_store(self) -> None:
        kv = MnemonKeyValueStore(client("py-lg-store"))
        kv.put(("users", "ana"), "editor", {"name": "helix", "since": 2024})
        kv.put(("users", "ana"), "shell", {"name": "fish"})
        kv.put(("users", "bo"), "editor", {"name": "emacs"})
        got = kv.get(("users", "ana"), "editor")
        assert got is not None
        self.assertEqual(got.value, {"name": "helix", "since": 2024})
        kv.put(("users", "ana"), "editor", {"name": "zed"})
        got = kv.get(("users", "ana"), "editor")
        self.assertEqual(got.value if got else None, {"name": "zed"}, "a put replaces the value")
        self.assertIsNone(kv.get(("users", "ana"), "pager"))
        self.assertEqual({it.key for it in kv.search(("users", "ana"))}, {"editor", "shell"})
        self.assertEqual(len(kv.search(("users",))), 3)
        self.assertEqual(kv.list_namespaces(("users",)), [("users", "ana"), ("users", "bo")])
        self.assertEqual(kv.list_namespaces(max_depth=1), [("users",)])
        self.assertEqual(MnemonKeyValueStore(client("py-lg-empty")).search(("users",)), [])
        ranked = kv.search(("users",), query="which shell does ana use? fish")
        self.assertEqual(ranked[0].key, "shell")
        kv.delete(("users", "ana"), "shell")
        self.assertIsNone(kv.get(("users", "ana"), "shell"))
        kv.put(("Teams", "a/b"), "Odd Key", {"ok": True})
        got = kv.get(("Teams", "a/b"), "Odd Key")
        self.assertEqual(got.value if got else None, {"ok": True})
        with self.assertRaises(ValueError):
            kv.put(("",), "k", {})


class Role(Enum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"


@dataclass
class ChatMessage:
    """A stand-in with LlamaIndex's ChatMessage shape (role enum, content)."""

    role: Role
    content: str


class LlamaIndexTest(unittest.TestCase):
    def test_block_core(self) -> None:
        c = client("py-li-block")
        block = MnemonBlockCore(c, "li-1", token_budget=300)
        self.assertEqual(block.get([ChatMessage(Role.USER, "what is my timezone?")]), "")
        block.put([ChatMessage(Role.SYSTEM, "You are terse."), ChatMessage(Role.USER, "I work from Lisbon, in the WET timezone."),
                   ChatMessage(Role.ASSISTANT, "Noted: Lisbon, WET.")])
        later = MnemonBlockCore(c, "li-2")
        ctx = later.get([ChatMessage(Role.ASSISTANT, "Hi"), ChatMessage(Role.USER, "Which timezone am I in?")])
        self.assertIn("Lisbon", ctx)
        self.assertNotIn("terse", ctx, "system messages are not captured")
        self.assertEqual(later.get([ChatMessage(Role.ASSISTANT, "only the agent spoke")]), "")


class ExampleAgentLoopTest(unittest.TestCase):
    def test_agent_loop_remembers_across_sessions(self) -> None:
        script = os.path.join(REPO, "examples", "python-agent", "agent_loop.py")
        env = dict(os.environ)
        env.pop("MNEMON_API_KEY", None)
        run = subprocess.run([sys.executable, script, "--url", server.url], capture_output=True, text=True, timeout=120, env=env)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("remembered across sessions", run.stdout)
        self.assertIn("Thursdays", run.stdout)


if __name__ == "__main__":
    unittest.main()
