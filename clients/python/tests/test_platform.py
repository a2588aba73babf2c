"""The client against the real API, started by test/e2e/python-client.test.ts (Orb and Google Drive simulators)."""

from __future__ import annotations

import os
import tempfile
import time
import unittest
from typing import List

from support import platform_client, platform_missing

from conduit_client import ConduitProblem

SKIP = platform_missing()


@unittest.skipIf(SKIP is not None, SKIP or "")
class PlatformTest(unittest.TestCase):
    def setUp(self) -> None:
        self.conduit = platform_client()
        self.orb = os.environ["CONDUIT_ORB_CONNECTOR_ID"]
        self.customers = int(os.environ["CONDUIT_ORB_CUSTOMERS"])

    def test_fetches_a_token_and_refreshes_it_once_expired(self) -> None:
        self.conduit.list_connectors()
        self.assertEqual(self.conduit.transport.tokens_obtained, 1)
        later = time.time() + 24 * 3600  # every token issued now has expired by then
        self.conduit.transport._clock = lambda: later
        connectors = self.conduit.list_connectors()
        self.assertIn(self.orb, [c["connector_id"] for c in connectors])
        self.assertEqual(self.conduit.transport.tokens_obtained, 2)

    def test_a_refused_token_is_replaced_once_on_401(self) -> None:
        self.conduit.token()
        self.conduit.transport._token = "forged.token.value"
        self.assertEqual(self.conduit.get_connector(self.orb)["connector_type"], "Orb")
        self.assertEqual(self.conduit.transport.tokens_obtained, 2)

    def test_search_pages_by_cursor_and_search_all_reads_every_record_once(self) -> None:
        first = self.conduit.search(self.orb, "customers", {"sort": [{"created_at": "asc"}]}, limit=2)
        self.assertEqual(len(first["data"]), 2)
        self.assertTrue(first["meta"]["has_more"])
        ids: List[str] = [r["id"] for r in self.conduit.search_all(self.orb, "customers", page_size=2)]
        self.assertEqual(len(ids), self.customers)
        self.assertEqual(len(set(ids)), self.customers)
        some = self.conduit.search(self.orb, "customers", {"filter": {"in": {"id": ids[:3]}}}, limit=10)
        self.assertEqual(sorted(r["id"] for r in some["data"]), sorted(ids[:3]))

    def test_list_all_follows_the_entitys_next_cursor(self) -> None:
        whole = self.conduit.execute(self.orb, "customers", "list", {"limit": 100})["data"]
        self.assertGreater(len(whole), 2)
        ids = [r["id"] for r in self.conduit.list_all(self.orb, "customers", {"limit": 2})]
        self.assertEqual(sorted(ids), sorted(r["id"] for r in whole))

    def test_sql_counts_and_sql_all_pages(self) -> None:
        count = self.conduit.sql(self.orb, "SELECT COUNT(*) AS n FROM customers")
        self.assertEqual(count["data"], [{"n": self.customers}])
        rows = list(self.conduit.sql_all(self.orb, "SELECT id FROM customers ORDER BY id", page_size=2))
        self.assertEqual(len({row["id"] for row in rows}), self.customers)

    def test_changes_iterates_the_feed_and_resumes_after_a_cursor(self) -> None:
        events = list(self.conduit.changes(self.orb, entity="customers", limit=2))
        created = [e for e in events if e["type"] == "record.created"]
        self.assertEqual(len({e["key"] for e in created}), self.customers)
        self.assertTrue(all(e["entity"] == "customers" and "cursor" in e for e in events))
        rest = list(self.conduit.changes(self.orb, entity="customers", after=events[1]["cursor"]))
        self.assertEqual([e["id"] for e in rest], [e["id"] for e in events[2:]])
        self.assertEqual(list(self.conduit.changes(self.orb, after="latest")), [])

    def test_a_bad_filter_raises_conduit_problem_with_code_and_errors(self) -> None:
        with self.assertRaises(ConduitProblem) as raised:
            self.conduit.search(self.orb, "customers", {"filter": {"eq": {"nmae": "x"}}})
        problem = raised.exception
        self.assertEqual((problem.status, problem.code), (400, "invalid_filter"))
        self.assertTrue(problem.type.startswith("https://"))
        self.assertTrue(problem.title)
        self.assertTrue(problem.errors, "the problem lists what is wrong")
        self.assertIn("nmae", problem.errors[0]["path"] + problem.errors[0]["message"])

    def test_usage_counts_this_organizations_calls_by_class(self) -> None:
        before = self.conduit.usage(granularity="hour", connector_id=self.orb)
        searched = sum(bucket["metrics"]["api_search"] for bucket in before["data"])
        self.conduit.search(self.orb, "customers", limit=1)
        after = self.conduit.usage(granularity="hour", connector_id=self.orb)
        self.assertEqual(sum(bucket["metrics"]["api_search"] for bucket in after["data"]), searched + 1)
        self.assertEqual(len(after["data"]), 24)
        self.assertIn("requests_per_day", after["meta"]["quotas"])
        with self.assertRaises(ConduitProblem) as raised:
            self.conduit.usage(granularity="week")
        self.assertEqual([e["path"] for e in raised.exception.errors], ["/query/granularity"])

    def test_download_streams_into_a_file_in_chunks(self) -> None:
        drive = os.environ.get("CONDUIT_DRIVE_CONNECTOR_ID")
        if not drive:
            self.fail("CONDUIT_DRIVE_CONNECTOR_ID is not set")
        file_id = os.environ["CONDUIT_DRIVE_FILE_ID"]
        size = int(os.environ["CONDUIT_DRIVE_FILE_BYTES"])
        writes: List[int] = []

        with tempfile.TemporaryFile() as out:
            original_write = out.write

            def counting_write(chunk: bytes) -> int:
                writes.append(len(chunk))
                return original_write(chunk)

            out.write = counting_write  # type: ignore[method-assign]
            answer = self.conduit.download(drive, "files", {"fileId": file_id, "alt": "media"}, out,
                                           chunk_size=64 * 1024)
            out.seek(0, os.SEEK_END)
            self.assertEqual(out.tell(), size)
        self.assertEqual((answer["status"], answer["bytes_written"]), (200, size))
        self.assertGreater(len(writes), 1)
        self.assertLessEqual(max(writes), 64 * 1024)


if __name__ == "__main__":
    unittest.main()
