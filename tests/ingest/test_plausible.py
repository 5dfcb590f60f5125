"""Infinite values are reported and left out, never fatal; negative ones are kept."""

from __future__ import annotations

from pathlib import Path

from sphinxcontrib_trending.analysis import classify
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.ingest import SourceSpec, load

CSV = """test,build,time,values,job
t.a,1,2026-01-01T00:00:00Z,10;11,job
t.a,2,2026-01-02T00:00:00Z,-5;11,job
t.a,3,2026-01-03T00:00:00Z,inf,job
t.a,4,2026-01-04T00:00:00Z,12;13,job
"""


def test_implausible_values_become_data_problems(tmp_path: Path) -> None:
    path = tmp_path / "results.csv"
    path.write_text(CSV)
    dataset = load(SourceSpec(paths=(str(path),), format="csv"))
    problems = [p for p in dataset.problems if p.subtype == "data"]
    assert len(problems) == 1
    assert all(p.origin.endswith("results.csv") for p in problems)
    messages = " | ".join(p.message for p in problems)
    assert "inf is not finite" in messages
    assert [len(b.tests) for b in dataset.builds] == [1, 1, 1, 1]
    assert [bool(b.tests[0].measurements) for b in dataset.builds] == [True, True, False, True]
    (history,) = histories(dataset.builds, "mrr")
    result = classify([run.average for run in history.runs])
    assert result.missing == (2,)
    assert history.runs[1].values == (-5.0, 11.0)
