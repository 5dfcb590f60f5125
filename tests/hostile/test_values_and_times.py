"""Implausible values and out-of-range times: a data problem, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sphinxcontrib_trending.analysis import classify
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.ingest.model import Build
from tests.hostile.documents import load_here, messages, rf7, write


def _jsonl(*values: object) -> str:
    return "".join(
        json.dumps({"test": "a.b", "build": n, "time": f"2024-05-0{n}T00:00:00Z", "values": value})
        + "\n"
        for n, value in enumerate(values, start=1)
    )


@pytest.mark.parametrize(
    "value", [[1e101], [1.7e308, 1.7e308], [1e300], [-1e101], [1e101, -1e101], [5.0, -1e300]]
)
def test_values_above_the_bound_are_a_data_problem(tmp_path: Path, value: list[float]) -> None:
    path = write(tmp_path, "r.jsonl", _jsonl([5.0, 6.0], value, [5.5]))
    dataset = load_here(path, format="jsonl")
    (problem,) = dataset.problems
    assert problem.subtype == "data" and problem.origin == str(path)
    assert "test a.b" in problem.message and "above 1e+100" in problem.message
    assert [bool(b.tests[0].measurements) for b in dataset.builds] == [True, False, True]
    (history,) = histories(dataset.builds, "mrr")
    result = classify([run.average for run in history.runs])  # no overflow, no traceback
    assert result.missing == (1,)


@pytest.mark.parametrize(
    ("start", "elapsed", "said"),
    [
        ("2024-05-01T01:00:00.000000", "1e20", "elapsed time '1e20' is out of range"),
        ("9999-12-31T23:00:00.000000", "7200", "is out of range"),
        ("9999-12-31T23:00:00.000000", "1", "is outside 1970..2200"),
    ],
)
def test_out_of_range_robot_times_are_a_data_problem_for_that_file(
    tmp_path: Path, start: str, elapsed: str, said: str
) -> None:
    bad = write(tmp_path, "job__1__output.xml", rf7(start=start, elapsed=elapsed))
    write(tmp_path, "job__2__output.xml", rf7())
    dataset = load_here(tmp_path)
    assert said in messages(dataset)
    assert all(p.origin == str(bad) and p.subtype == "data" for p in dataset.problems)
    assert "2" in {build.build for build in dataset.builds}
    assert all(isinstance(build, Build) for build in dataset.builds)


def test_out_of_range_table_times_are_a_row_problem(tmp_path: Path) -> None:
    rows = [
        {"test": "a.b", "build": 1, "time": "0001-01-01T00:00:00+05:00", "value": 1},
        {"test": "a.b", "build": 2, "time": "9999-12-31T23:00:00Z", "value": 1},
        {"test": "a.b", "build": 3, "time": "2024-05-01T00:00:00Z", "value": 1},
    ]
    path = write(tmp_path, "r.jsonl", "".join(json.dumps(row) + "\n" for row in rows))
    dataset = load_here(path, format="jsonl")
    assert [build.build for build in dataset.builds] == ["3"]
    assert len(dataset.problems) == 2
