"""One bad line or row is skipped and named; the rows after it are read."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile.documents import load_here, write


def _row(build: int) -> str:
    return json.dumps({"test": "s.t", "build": build, "time": f"2024-05-0{build}T00:00:00Z",
                       "value": 1.0})  # fmt: skip


def test_a_deeply_nested_json_line_is_skipped(tmp_path: Path) -> None:
    text = "\n".join([_row(1), "[" * 100_000, _row(3)]) + "\n"
    dataset = load_here(write(tmp_path, "r.jsonl", text), format="jsonl")
    assert [build.build for build in dataset.builds] == ["1", "3"]
    (problem,) = dataset.problems
    assert problem.line == 2 and "nested too deeply" in problem.message


def test_a_csv_field_over_the_size_limit_is_skipped_and_named(tmp_path: Path) -> None:
    text = (
        "test,build,time,value,message\n"
        "s.t,1,2024-05-01T00:00:00Z,1,ok\n"
        f"s.t,2,2024-05-02T00:00:00Z,1,{'x' * 131_073}\n"
        "s.t,3,2024-05-03T00:00:00Z,1,ok\n"
    )
    dataset = load_here(write(tmp_path, "r.csv", text), format="csv")
    assert [build.build for build in dataset.builds] == ["1", "3"]
    (problem,) = dataset.problems
    assert problem.line == 3 and "field larger than field limit" in problem.message
