"""Per-build failure tables: the newest build of each job, equal failures together."""

from __future__ import annotations

from dataclasses import replace

from sphinxcontrib_trending.analysis.identity import SeriesRef
from sphinxcontrib_trending.ingest.dimensions import rules_for
from sphinxcontrib_trending.render.per_build import PER_BUILD_HEADER, per_build_failures
from tests.hand_built import JOB, builds, result


def test_rows_show_each_tests_own_masked_message_grouped_by_root_cause() -> None:
    older, newest = builds({"ok": lambda n: 5e6}, [1, 2])
    failed = (
        replace(result("a", None), message="No traffic from 10.0.0.1"),
        replace(result("b", None), message="Link down"),
        replace(result("c", None), message="No traffic from 10.0.0.2\nAlso teardown failed: 0x1f"),
    )
    newest = replace(newest, tests=(*newest.tests, *failed))
    other = builds({"ok": lambda n: 5e6}, [3], job="other-job")
    (table, quiet) = per_build_failures([older, newest, *other], rules_for(), metric="mrr")
    assert table.header == PER_BUILD_HEADER
    assert table.caption == (
        f"{JOB}/2 (testbed 2n-skx, DUT build 26.02-rc0~2, 2026-01-02 06:00 UTC): 1 passed, 3 failed"
    )
    assert [row.cells for row in table.rows] == [
        ("a", "2", "No traffic from <IPv4>"),
        ("c", "2", "No traffic from <IPv4>\nAlso teardown failed: <HEX>"),
        ("b", "1", "Link down"),
    ]
    assert [row.link_key for row in table.rows] == [
        SeriesRef("mrr", "2n-skx/tests.perf.a"),
        SeriesRef("mrr", "2n-skx/tests.perf.c"),
        SeriesRef("mrr", "2n-skx/tests.perf.b"),
    ]
    assert quiet.caption.startswith("other-job/3 (") and quiet.rows == ()
