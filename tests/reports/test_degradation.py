"""One degradation record serves the CLI's table, JSON, JUnit and the directive's table."""

from __future__ import annotations

from datetime import datetime, timezone

from sphinxcontrib_trending.analysis.degradation import DEGRADATION, NO_CHANGE, Report
from sphinxcontrib_trending.analysis.degradation.builds import BuildComparison
from sphinxcontrib_trending.analysis.identity import SeriesRef
from sphinxcontrib_trending.ingest.model import Build
from sphinxcontrib_trending.render.degradation import degradation_table
from sphinxcontrib_trending.reports.degradation import (
    json_document,
    junit_suites,
    target_records,
    text_table,
)

TIME = datetime(2026, 1, 30, 6, 0, tzinfo=timezone.utc)
BASELINE = Build("job-2n-skx", "29", TIME, None, "2n-skx", "x", ())
TARGET = Build("job-2n-skx", "30", TIME, None, "2n-skx", "y", ())


def _report(location: str, result: str, change: float) -> Report:
    return Report(
        result,
        "mean",
        "p_value",
        0.99,
        location,
        10.0e6,
        10.0e6 * (1 + change),
        "welch_t_test",
        change,
        "why",
    )


COMPARISON = BuildComparison(
    target=TARGET,
    metric="mrr",
    reports=[_report("t.slow", DEGRADATION, -0.2), _report("t.same", NO_CHANGE, 0.001)],
    baselines={"t.slow": BASELINE, "t.same": BASELINE},
    names={"t.slow": "slow", "t.same": "same"},
)


def test_record_names_builds_job_slash_build() -> None:
    target = target_records(COMPARISON)
    assert target.caption == "job-2n-skx/30 (2026-01-30 06:00 UTC)"
    slow = target.records[0]
    assert (slow.name, slow.baseline, slow.key) == (
        "slow",
        "job-2n-skx/29",
        SeriesRef("mrr", "2n-skx/t.slow"),
    )


def test_no_change_is_left_out_of_what_people_read_unless_asked() -> None:
    target = target_records(COMPARISON)
    quiet = text_table([target], frozenset({DEGRADATION}))
    assert any("slow" in line for line in quiet)
    assert not any("same" in line for line in quiet)
    assert quiet[-1] == (
        "1 of 2 comparisons fail the job (Degradation); "
        "1 No Change not listed (--verbose lists them)."
    )
    verbose = text_table([target], frozenset({DEGRADATION}), no_change=True)
    assert any("same" in line for line in verbose)
    assert [row.cells[0] for row in degradation_table(target, "pps").rows] == ["slow"]
    table = degradation_table(target, "pps", no_change=True)
    assert [row.cells[:2] for row in table.rows] == [("slow", DEGRADATION), ("same", NO_CHANGE)]
    assert table.rows[0].cells[4:8] == ("job-2n-skx/29", "10.000", "8.000", "-20.00")


def test_machine_outputs_keep_every_record() -> None:
    target = target_records(COMPARISON)
    document = json_document([target], frozenset({DEGRADATION}))
    reports = document["targets"][0]["reports"]
    assert [r["result"] for r in reports] == [DEGRADATION, NO_CHANGE]
    assert set(reports[0]) == {
        "test_id", "name", "result", "subtype", "method", "baseline", "from", "to",
        "relative_change", "confidence_type", "confidence", "reason",
    }  # fmt: skip
    (suite,) = junit_suites([target], frozenset({DEGRADATION}))
    assert [case.failure_type for case in suite.cases] == [DEGRADATION, None]
    assert suite.cases[0].output == "Degradation (mean) against job-2n-skx/29"
