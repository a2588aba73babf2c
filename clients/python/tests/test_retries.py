"""Retries against a tiny local server: Retry-After honoured and bounded, idempotency keys kept across retries."""

from __future__ import annotations

import time
import unittest
from email.utils import formatdate
from typing import List

from support import ScriptedServer, problem

from conduit_client import ConduitProblem
from conduit_client._problem import parse_retry_after


class RetryAfterTest(unittest.TestCase):
    def setUp(self) -> None:
        self.waits: List[float] = []

    def serve(self, answers) -> ScriptedServer:  # type: ignore[no-untyped-def]
        server = ScriptedServer(answers)
        self.addCleanup(server.close)
        return server

    def test_waits_the_retry_after_of_each_429_then_returns_the_answer(self) -> None:
        limited = (429, {"retry-after": "2"}, problem(429, "rate_limited"))
        server = self.serve([limited, limited, (200, {}, {"data": [{"id": "a"}], "meta": {"has_more": False}})])
        page = server.client(self.waits.append).search("c1", "customers")
        self.assertEqual([record["id"] for record in page["data"]], ["a"])
        self.assertEqual(self.waits, [2.0, 2.0])
        self.assertEqual(len(server.requests), 3)

    def test_sleeps_for_real_when_no_sleep_is_given(self) -> None:
        server = self.serve([(429, {"retry-after": "1"}, problem(429, "rate_limited")), (200, {}, {"data": []})])
        client = server.client(time.sleep)
        started = time.monotonic()
        client.execute("c1", "customers", "list")
        self.assertGreaterEqual(time.monotonic() - started, 0.95)

    def test_gives_up_after_max_retries_with_the_problem(self) -> None:
        limited = (429, {"retry-after": "1"}, problem(429, "rate_limited", "slow down"))
        server = self.serve([limited] * 10)
        with self.assertRaises(ConduitProblem) as raised:
            server.client(self.waits.append, max_retries=2).search("c1", "customers")
        self.assertEqual((raised.exception.status, raised.exception.code), (429, "rate_limited"))
        self.assertEqual(raised.exception.retry_after, 1.0)
        self.assertEqual(len(server.requests), 3)
        self.assertEqual(self.waits, [1.0, 1.0])

    def test_a_wait_longer_than_max_retry_after_raises_at_once(self) -> None:
        server = self.serve([(503, {"retry-after": "120"}, problem(503, "search_unavailable"))])
        with self.assertRaises(ConduitProblem) as raised:
            server.client(self.waits.append, max_retry_after=30).search("c1", "customers")
        self.assertEqual(raised.exception.code, "search_unavailable")
        self.assertEqual((len(server.requests), self.waits), (1, []))

    def test_a_write_keeps_one_idempotency_key_across_its_retries(self) -> None:
        server = self.serve([
            (503, {"retry-after": "0"}, problem(503, "upstream_error")),
            (409, {"retry-after": "1"}, problem(409, "idempotency_in_progress")),
            (200, {}, {"data": {"id": "new"}}),
        ])
        answer = server.client(self.waits.append).execute("c1", "files", "create", {"name": "x"})
        self.assertEqual(answer, {"data": {"id": "new"}})
        keys = [request["headers"].get("idempotency-key") for request in server.requests]  # type: ignore[union-attr]
        self.assertEqual(len(keys), 3)
        self.assertIsNotNone(keys[0])
        self.assertEqual(len(set(keys)), 1)

    def test_reads_carry_no_idempotency_key_and_a_given_key_is_sent_as_is(self) -> None:
        server = self.serve([(200, {}, {"data": []}), (200, {}, {"data": {}})])
        client = server.client(self.waits.append)
        client.execute("c1", "customers", "list")
        client.execute("c1", "files", "delete", {"fileId": "f"}, idempotency_key="my-key-1")
        headers = [request["headers"] for request in server.requests]
        self.assertNotIn("idempotency-key", headers[0])  # type: ignore[operator]
        self.assertEqual(headers[1]["idempotency-key"], "my-key-1")  # type: ignore[index]

    def test_a_token_is_refreshed_before_it_expires(self) -> None:
        server = ScriptedServer([], token_ttl_s=31)  # inside the 30 s refresh margin after one second
        self.addCleanup(server.close)
        client = server.client(self.waits.append)
        client.execute("c1", "customers", "list")
        self.assertEqual(server.tokens_granted, 1)
        time.sleep(1.1)
        client.execute("c1", "customers", "list")
        self.assertEqual(server.tokens_granted, 2)
        self.assertEqual(server.requests[1]["headers"]["authorization"], "Bearer t2")  # type: ignore[index]


class RetryAfterValueTest(unittest.TestCase):
    def test_reads_seconds_and_http_dates(self) -> None:
        self.assertEqual(parse_retry_after("7"), 7.0)
        in_ten = parse_retry_after(formatdate(time.time() + 10, usegmt=True))
        assert in_ten is not None
        self.assertTrue(8.0 <= in_ten <= 10.0, in_ten)
        self.assertEqual(parse_retry_after(formatdate(time.time() - 60, usegmt=True)), 0.0)
        self.assertIsNone(parse_retry_after("soon"))
        self.assertIsNone(parse_retry_after(None))


if __name__ == "__main__":
    unittest.main()
