"""An ignored duplicate row changes nothing: not the values, not the build's time."""

from __future__ import annotations

from pathlib import Path

from tests.hostile.documents import load_here, write

CSV = """test,job,build,time,values
s.t,j,1,2024-05-01T00:00:00Z,10;11
s.t,j,1,2024-05-09T00:00:00Z,1;2
s.u,j,1,2024-05-01T00:00:00Z,5
"""


def test_a_duplicate_row_with_a_later_time_changes_nothing(tmp_path: Path) -> None:
    dataset = load_here(write(tmp_path, "r.csv", CSV), format="csv")
    (build,) = dataset.builds
    assert build.time.isoformat() == "2024-05-01T00:00:00+00:00"
    assert build.tests[0].measurements[0].values == (10.0, 11.0)
    (problem,) = dataset.problems
    assert problem.subtype == "duplicate" and problem.line == 3
