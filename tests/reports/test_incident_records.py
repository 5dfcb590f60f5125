"""Incident records and lines: valid JSON whatever the numbers, control characters shown."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from sphinxcontrib_trending.analysis import history as series
from sphinxcontrib_trending.analysis.incidents import Anomaly, incidents
from sphinxcontrib_trending.reports.incidents import incident_lines, incident_record

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _history(name: str) -> series.TestHistory:
    runs = tuple(
        series.Run(
            START + timedelta(days=n), "job", str(n), f"v{n}", "tb", "PASS", "", (1.0,), 1.0, 0.0
        )
        for n in range(3)
    )
    return series.TestHistory(name, name, name, "s", (), "tb", None, "mrr", "pps", runs)


def test_a_change_json_cannot_hold_is_null() -> None:
    first = _history("a")
    found = incidents(
        [
            Anomaly("src", "regression", first, 2, float("-inf"), last_good_run=first.runs[1]),
            Anomaly("src", "regression", _history("b"), 2, -0.5),
        ]
    )
    record = incident_record(found[0])
    json.dumps(record, allow_nan=False)
    assert [test["change"] for test in record["tests"]] == [None, -0.5]
    assert record["changes"]["min"] is None and record["changes"]["max"] == -0.5
    assert record["first_bad"]["version"] == "v2" and record["last_good"]["build"] == "1"


def test_a_first_run_has_no_last_good() -> None:
    [found] = incidents([Anomaly("src", "failure", _history("a"), 0)])
    assert incident_record(found)["last_good"] is None
    assert incident_lines([found])[0].startswith(
        "* Failure: 1 test since v0 (job/0), last good none"
    )
