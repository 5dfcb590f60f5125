"""What reading a table keeps: its builds, not its rows as well (``check --all`` at scale)."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from tests.ingest.conftest import load_paths

TESTS, BUILDS = 100, 40


def _table(path: Path) -> Path:
    values = ";".join(str(1e7 + 0.123456789 * trial) for trial in range(10))
    rows = [
        f"suite.test{test},{build},2024-01-{1 + build % 28:02d}T00:00:00Z,{values}\n"
        for build in range(BUILDS)
        for test in range(TESTS)
    ]
    path.write_text("test,build,time,values\n" + "".join(rows))
    return path


def test_reading_a_table_never_holds_its_rows_beside_its_builds(tmp_path: Path) -> None:
    path = _table(tmp_path / "results.csv")
    load_paths(path, format="csv")  # imports and first-use caches out of the way
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        dataset = load_paths(path, format="csv")
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sum(len(build.tests) for build in dataset.builds) == TESTS * BUILDS
    # the rows' fields (their values text above all) held to the end doubled the peak
    assert peak - before < 1.4 * (kept - before)


def test_every_build_shares_its_tests_names(tmp_path: Path) -> None:
    dataset = load_paths(_table(tmp_path / "results.csv"), format="csv")
    first, second = (build.tests[7] for build in dataset.builds[:2])
    assert first.name == "test7" and first.name is second.name and first.suite is second.suite
    assert first.status == "PASS" and first.status is second.status  # upper-cased once a row


def test_a_list_of_tags_and_the_same_text_stay_apart(tmp_path: Path) -> None:
    """Names are made once per distinct row; a JSON list is not its own text."""
    rows = [
        {"test": "s.t", "build": "1", "time": "2024-01-01T00:00:00Z", "tags": ["a", "b"]},
        {"test": "s.t", "build": "2", "time": "2024-01-02T00:00:00Z", "tags": '["a", "b"]'},
    ]
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps({**row, "value": 1}) + "\n" for row in rows))
    first, second = (build.tests[0].tags for build in load_paths(path, format="jsonl").builds)
    assert first == ("a", "b") and second == ('["a"', '"b"]')
