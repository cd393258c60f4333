"""The sync client against a real `mnemon serve`."""
from __future__ import annotations

import os
import unittest

from support import MnemonServer  # also puts the package on sys.path

import mnemon
from mnemon._generated import OPERATIONS, Operations

server: MnemonServer


def setUpModule() -> None:
    global server
    server = MnemonServer()


def tearDownModule() -> None:
    server.stop()


def client(namespace: str) -> mnemon.Client:
    return mnemon.Client(server.url, namespace=namespace, api_key="")


class OperationsTest(unittest.TestCase):
    def test_every_operation_is_a_method(self) -> None:
        names = [n for n in vars(Operations) if not n.startswith("_")]
        self.assertEqual(len(names), len(OPERATIONS))
        for name in names:
            self.assertTrue(callable(getattr(mnemon.Client, name)), name)
            self.assertTrue(callable(getattr(mnemon.AsyncClient, name)), name)

    def test_health_ready_metrics_openapi(self) -> None:
        c = client("py-health")
        self.assertEqual(c.health()["status"], "ok")
        self.assertEqual(c.ready()["status"], "ok")
        self.assertEqual(c.openapi()["openapi"], "3.1.0")
        self.assertIn("# TYPE", c.metrics())


class MemoryTest(unittest.TestCase):
    def test_remember_list_show_retrieve_trace_explain_feedback_forget(self) -> None:
        c = client("py-facts")
        rem = c.remember({"text": "The nightly backups go to the bucket named cold-archive-7."})
        memory_id = rem["outcomes"][0]["memory_id"]
        self.assertTrue(memory_id.startswith("mem_"), rem)

        listed = c.list_memories(limit=10)
        self.assertIn(memory_id, [v["memory_id"] for v in listed["memories"]])
        with_history = c.list_memories(include_history=True)
        self.assertIn(memory_id, [v["memory_id"] for v in with_history["memories"]])

        view = c.get_memory(memory_id)
        assert view["memory"] is not None and view["versions"] is not None
        self.assertEqual(view["memory"]["id"], memory_id)
        self.assertGreaterEqual(len(view["versions"]), 1)

        got = c.retrieve({"query": "where do the nightly backups go?", "limit": 5, "token_budget": 400})
        self.assertTrue(got["retrieval_id"].startswith("ret_"))
        self.assertIn(memory_id, [it["memory_id"] for it in got["items"]])
        self.assertIn("cold-archive-7", got["context"])

        trace = c.get_trace(got["retrieval_id"])
        self.assertEqual(trace["id"], got["retrieval_id"])
        self.assertGreaterEqual(len(trace["items"] or []), 1)

        fb = c.feedback(got["retrieval_id"], {"outcome": "helpful", "source": "agent", "memory_ids": [memory_id]})
        self.assertEqual(fb["retrieval_id"], got["retrieval_id"])
        self.assertGreaterEqual(len(fb["applied"] or []), 1)
        again = c.feedback(got["retrieval_id"], {"outcome": "helpful", "source": "agent", "memory_ids": [memory_id]})
        self.assertFalse(again["applied"], "a repeated judgement changes nothing")
        self.assertEqual(again["duplicates"], [it["version_id"] for it in got["items"] if it["memory_id"] == memory_id])

        why = c.explain(memory_id)
        self.assertIn(got["retrieval_id"], str(why["memory"]), "explain shows the feedback")
        why_ranked = c.explain(got["retrieval_id"])
        ranked_trace = why_ranked["retrieval"]["trace"]
        assert ranked_trace is not None
        self.assertEqual(ranked_trace["id"], got["retrieval_id"])

        gone = c.forget(memory_id)
        self.assertEqual(gone["memory_id"], memory_id)
        self.assertEqual(c.forget(memory_id)["memory_id"], memory_id)  # forgetting twice changes nothing
        after = c.retrieve({"query": "where do the nightly backups go?", "limit": 5, "token_budget": 400})
        self.assertNotIn(memory_id, [it["memory_id"] for it in after["items"]])

    def test_capture_job_export_import(self) -> None:
        c = client("py-capture")
        cap = c.capture(
            {
                "session_id": "py-s1",
                "events": [
                    {"kind": "user_message", "content": "I moved to Porto last spring.", "occurred_at": "2026-11-01T10:00:00Z"}
                ],
            },
            wait=True,
        )
        self.assertEqual(len(cap["episode_ids"]), 1)
        self.assertEqual(cap["job_state"], "succeeded")
        self.assertEqual(c.get_job(cap["job_id"])["state"], "succeeded")

        dump = c.export()
        self.assertGreaterEqual(len([line for line in dump.split("\n") if line]), 2)
        imported = client("py-imported")
        stats = imported.import_namespace(dump)
        self.assertGreaterEqual(stats["episodes"], 1)
        found = imported.retrieve({"query": "where do I live?", "limit": 3, "token_budget": 300})
        self.assertIn("Porto", found["context"])

    def test_graph_procedures_lifecycle_consolidate(self) -> None:
        c = client("py-maintenance")
        c.remember({"text": "Dana manages the payments team."})
        hood = c.neighborhood("Dana", hops=1, limit=10)
        self.assertEqual(hood["hops"], 1)
        self.assertIn("claims", hood)
        self.assertEqual(c.list_procedures()["procedures"], [])
        self.assertEqual(c.promote_procedures()["namespace"], "py-maintenance")
        run = c.run_lifecycle({"dry_run": True})
        assert run["lifecycle"] is not None
        self.assertTrue(run["lifecycle"]["dry_run"])
        c.capture({"session_id": "py-old", "events": [{"kind": "user_message", "content": "Lunch is at noon.",
                                                       "occurred_at": "2026-01-05T12:00:00Z"}]}, wait=True)
        con = c.consolidate("py-old", {"force": True})
        self.assertIn("more", con)
        self.assertIsInstance(con["purged"], list)


class ErrorTest(unittest.TestCase):
    def test_problems_raise_the_class_of_their_code(self) -> None:
        c = client("py-errors")
        c.remember({"text": "The staging database listens on port 5433."})
        with self.assertRaises(mnemon.NotFoundError) as caught:
            c.get_memory("mem_01jzzzzzzzzzzzzzzzzzzzzzzz")
        err = caught.exception
        self.assertIsInstance(err, mnemon.MnemonError)
        self.assertEqual((err.status, err.code), (404, "not_found"))
        self.assertTrue(err.request_id.startswith("req_"), err.request_id)
        self.assertTrue(err.detail)

        with self.assertRaises(mnemon.InvalidRequestError) as invalid:
            c.retrieve({"query": "", "limit": -1})
        self.assertEqual((invalid.exception.status, invalid.exception.code), (400, "invalid_request"))

        with self.assertRaises(mnemon.RetrievalNotFoundError):
            c.feedback("ret_01jzzzzzzzzzzzzzzzzzzzzzzz", {"outcome": "helpful"})

        # The test server has no chat model.
        with self.assertRaises(mnemon.ModelNotConfiguredError) as no_chat:
            c.respond({"query": "which port does staging use?"})
        self.assertEqual((no_chat.exception.status, no_chat.exception.code), (503, "model_not_configured"))

        with self.assertRaises(ValueError):
            c.get_memory("")

    def test_an_unknown_key_is_unauthenticated(self) -> None:
        c = mnemon.Client(server.url, api_key="mnk_not_a_key")
        with self.assertRaises(mnemon.UnauthenticatedError) as caught:
            c.list_memories()
        self.assertEqual(caught.exception.status, 401)

    def test_the_key_comes_from_the_environment(self) -> None:
        old = os.environ.get("MNEMON_API_KEY")
        os.environ["MNEMON_API_KEY"] = "mnk_from_the_environment"
        try:
            with self.assertRaises(mnemon.UnauthenticatedError):
                mnemon.Client(server.url).list_memories()
        finally:
            if old is None:
                del os.environ["MNEMON_API_KEY"]
            else:
                os.environ["MNEMON_API_KEY"] = old

    def test_no_server_is_a_transport_error(self) -> None:
        c = mnemon.Client("http://127.0.0.1:1", retries=1, backoff=0.01, timeout=2)
        with self.assertRaises(mnemon.TransportError) as caught:
            c.health()
        self.assertEqual(caught.exception.status, 0)


if __name__ == "__main__":
    unittest.main()
