"""Retries, Retry-After, timeouts and unknown problem codes.

mnemon cannot be made to answer 429 or 503 on demand, so these talk to a
stand-in http.server on loopback.
"""
from __future__ import annotations

import time
import unittest

from support import StubServer, elapsed, json_body, problem

import mnemon

OK = (200, {"Content-Type": "application/json"}, json_body({"status": "ok"}))


class RetryTest(unittest.TestCase):
    def stub(self, respond) -> StubServer:  # type: ignore[no-untyped-def]
        s = StubServer(respond)
        self.addCleanup(s.stop)
        return s

    def test_429_then_200_honours_retry_after(self) -> None:
        def respond(n, _):  # type: ignore[no-untyped-def]
            if n == 1:
                return 429, {"Retry-After": "1", "Content-Type": "application/problem+json"}, problem(429, "rate_limited")
            return OK

        s = self.stub(respond)
        c = mnemon.Client(s.url, backoff=0.001)
        result, took = elapsed(c.health)
        self.assertEqual(result["status"], "ok")
        self.assertEqual(len(s.requests), 2)
        self.assertGreaterEqual(took, 0.95, "waited as Retry-After said, not the 1 ms backoff")

    def test_retry_after_as_an_http_date(self) -> None:
        def respond(n, _):  # type: ignore[no-untyped-def]
            if n == 1:
                return 429, {"Retry-After": "Thu, 01 Jan 1970 00:00:00 GMT"}, problem(429, "rate_limited")
            return OK

        s = self.stub(respond)
        self.assertEqual(mnemon.Client(s.url).health()["status"], "ok")  # a date gone by: at once
        self.assertEqual(len(s.requests), 2)

    def test_gets_retry_on_503_then_give_up_with_the_problem(self) -> None:
        s = self.stub(lambda n, _: (503, {}, problem(503, "timeout", "unavailable")))
        c = mnemon.Client(s.url, retries=2, backoff=0.001)
        with self.assertRaises(mnemon.MnemonTimeoutError) as caught:
            c.list_memories()
        self.assertEqual(caught.exception.status, 503)
        self.assertEqual(len(s.requests), 3)

    def test_a_post_that_stores_is_sent_once_and_retrieve_is_retried(self) -> None:
        s = self.stub(lambda n, _: (429, {"Retry-After": "0"}, problem(429, "rate_limited")))
        c = mnemon.Client(s.url, retries=2, backoff=0.001)
        with self.assertRaises(mnemon.RateLimitedError):
            c.remember({"text": "a statement"})
        with self.assertRaises(mnemon.RateLimitedError):
            c.capture({"events": [{"kind": "user_message", "content": "hi", "occurred_at": "2026-11-02T09:00:00Z"}]})
        self.assertEqual([r[0] for r in s.requests], ["POST", "POST"])
        with self.assertRaises(mnemon.RateLimitedError):
            c.retrieve({"query": "anything"})
        self.assertEqual(len(s.requests), 5, "retrieve: one attempt and two retries")

    def test_a_slow_answer_times_out_and_is_retried(self) -> None:
        def respond(n, _):  # type: ignore[no-untyped-def]
            if n == 1:
                time.sleep(1.0)
            return OK

        s = self.stub(respond)
        c = mnemon.Client(s.url, timeout=0.3, retries=1, backoff=0.001)
        self.assertEqual(c.health()["status"], "ok")
        self.assertEqual(len(s.requests), 2)

        def always_slow(n, _):  # type: ignore[no-untyped-def]
            time.sleep(1.0)
            return OK

        slow = self.stub(always_slow)
        with self.assertRaises(mnemon.TransportError):
            mnemon.Client(slow.url, timeout=0.3, retries=0).health()

    def test_an_unknown_code_raises_the_base_class(self) -> None:
        body = problem(418, "brand_new_code", "teapot", detail="too hot", field="query", request_id="req_1")
        s = self.stub(lambda n, _: (418, {}, body))
        with self.assertRaises(mnemon.MnemonError) as caught:
            mnemon.Client(s.url).health()
        err = caught.exception
        self.assertIs(type(err), mnemon.MnemonError)
        self.assertEqual((err.status, err.code, err.title, err.detail), (418, "brand_new_code", "teapot", "too hot"))
        self.assertEqual((err.field, err.request_id), ("query", "req_1"))
        self.assertIn("too hot", str(err))

    def test_a_body_that_is_not_a_problem(self) -> None:
        s = self.stub(lambda n, _: (500, {"Content-Type": "text/html"}, b"<h1>proxy error</h1>"))
        with self.assertRaises(mnemon.MnemonError) as caught:
            mnemon.Client(s.url).health()
        self.assertEqual((caught.exception.status, caught.exception.code), (500, "unknown"))
        self.assertIn("proxy error", caught.exception.detail)

    def test_headers_key_namespace_and_paths(self) -> None:
        s = self.stub(lambda n, _: (200, {}, json_body({"memory": {}, "versions": []})))
        mnemon.Client(s.url, api_key="mnk_secret", namespace="team-a").get_memory("mem/odd id")
        method, path, headers = s.requests[0]
        self.assertEqual((method, path), ("GET", "/v1/memories/mem%2Fodd%20id"))
        self.assertEqual(headers["Authorization"], "Bearer mnk_secret")
        self.assertEqual(headers["X-Mnemon-Namespace"], "team-a")


if __name__ == "__main__":
    unittest.main()
