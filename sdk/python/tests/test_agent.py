"""The AsyncClient and the PreTask/PostTask wrapper against a real `mnemon serve`."""
from __future__ import annotations

import asyncio
import unittest

from support import MnemonServer

import mnemon

server: MnemonServer


def setUpModule() -> None:
    global server
    server = MnemonServer()


def tearDownModule() -> None:
    server.stop()


class AgentTest(unittest.TestCase):
    def client(self, namespace: str) -> mnemon.Client:
        return mnemon.Client(server.url, namespace=namespace, api_key="")

    def test_an_empty_namespace_gives_an_empty_pack(self) -> None:
        agent = self.client("py-first-call").agent()
        pack = agent.pre_task("How do I rotate the signing keys?")
        self.assertEqual((pack.context, pack.retrieval_id, pack.items), ("", "", []))
        self.assertTrue(pack.session_id.startswith("ses_"))
        done = agent.post_task(output="Asked the platform team.", succeeded=True)
        self.assertEqual(len(done.capture["episode_ids"]), 2)  # the prompt and the task result

    def test_pre_task_record_post_task_with_feedback(self) -> None:
        c = self.client("py-agent")
        c.remember({"text": "Releases are tagged with make tag-release after the changelog is merged."})
        agent = c.agent(session_id="py-task-1", task_type="release", token_budget=400, feedback=True)
        pack = agent.pre_task("How do I tag a release?")
        self.assertTrue(pack.retrieval_id.startswith("ret_"))
        self.assertIn("tag-release", pack.context)
        with self.assertRaises(RuntimeError):
            agent.pre_task("a second task before the first ended")
        agent.record({"kind": "tool_call", "content": "make tag-release"})
        done = agent.post_task(output="Merged the changelog and ran make tag-release.", succeeded=True)
        self.assertEqual(done.session_id, "py-task-1")
        self.assertEqual(done.retrieval_id, pack.retrieval_id)
        self.assertEqual(len(done.capture["episode_ids"]), 3)  # prompt, tool call, task result
        explained = c.explain(pack.items[0]["memory_id"])
        self.assertIn(pack.retrieval_id, str(explained), "the feedback reached the memory")
        trace = c.get_trace(pack.retrieval_id)
        self.assertEqual(trace["scope"].get("session_id"), "py-task-1")
        with self.assertRaises(RuntimeError):
            agent.post_task(output="twice")

    def test_task_block_and_a_failing_block(self) -> None:
        c = self.client("py-task-block")
        c.remember({"text": "The load balancer health check path is /livez."})
        seen = []
        with c.task("Which path does the health check hit?", feedback=lambda rid, res: seen.append((rid, res))) as task:
            self.assertIn("/livez", task.context)
            task.output = "It hits /livez."
        self.assertIsNotNone(task.result)
        self.assertEqual(seen[0][0], task.retrieval_id)
        self.assertTrue(seen[0][1].succeeded)

        with self.assertRaises(KeyError):
            with c.task("Which path does the health check hit?", feedback=lambda rid, res: seen.append((rid, res))) as failing:
                raise KeyError("the tool broke")
        self.assertIsNotNone(failing.result, "a failed task is captured too")
        self.assertFalse(seen[1][1].succeeded)


class AsyncClientTest(unittest.IsolatedAsyncioTestCase):
    async def test_calls_errors_and_the_async_task(self) -> None:
        c = mnemon.AsyncClient(server.url, namespace="py-async", api_key="")
        health, ready = await asyncio.gather(c.health(), c.ready())
        self.assertEqual((health["status"], ready["status"]), ("ok", "ok"))

        rem = await c.remember({"text": "The on-call rotation changes every Tuesday."})
        memory_id = rem["outcomes"][0]["memory_id"]
        got = await c.retrieve({"query": "when does the on-call rotation change?", "token_budget": 300})
        self.assertIn("Tuesday", got["context"])
        view = await c.get_memory(memory_id)
        assert view["memory"] is not None
        self.assertEqual(view["memory"]["id"], memory_id)

        with self.assertRaises(mnemon.NotFoundError):
            await c.get_memory("mem_01jzzzzzzzzzzzzzzzzzzzzzzz")

        async with c.task("When does on-call change?", feedback=True) as task:
            self.assertIn("Tuesday", task.context)
            task.output = "Every Tuesday."
        self.assertIsNotNone(task.result)
        assert task.result is not None
        self.assertEqual(task.result.retrieval_id, task.retrieval_id)

        forgotten = await c.forget(memory_id)
        self.assertEqual(forgotten["memory_id"], memory_id)


if __name__ == "__main__":
    unittest.main()
