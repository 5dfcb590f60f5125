"""Incidents on hand-built daily histories: which anomalies are one, and in what order."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sphinxcontrib_trending.analysis import history as series
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.incident_sources import from_news, from_verdicts
from sphinxcontrib_trending.analysis.incidents import Anomaly, Incident, incidents
from sphinxcontrib_trending.analysis.news import news
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.analysis.verdicts import judge_latest
from sphinxcontrib_trending.ingest.model import Build
from tests.hand_built import JOB, Level, build_time, builds

LAST = 40
END = build_time(LAST)


def _step(at: int, before: float = 10e6, after: float = 8e6) -> Level:
    return lambda n: before if n < at else after


def _incidents(data: list[Build]) -> list[Incident]:
    trends = [summarize(history, TrendOptions(), END) for history in histories(data, "mrr")]
    return incidents(from_news(news(trends, END, 30), "mrr"))


def _names(incident: Incident) -> list[str]:
    return [member.history.name for member in incident.members]


def _testbed(levels: dict[str, Level], testbed: str) -> list[Build]:
    return builds(levels, range(1, LAST + 1), testbed=testbed, job=f"{JOB[:-6]}{testbed}")


def test_no_anomalies_no_incidents() -> None:
    assert incidents([]) == []
    assert _incidents(builds({"stable": lambda n: 9e6}, range(1, LAST + 1))) == []


def test_many_series_changing_at_one_version_are_one_incident() -> None:
    levels = {f"case-{k}": _step(30, 10e6, 10e6 * (0.9 - k / 100)) for k in range(5)}
    found = _incidents(_testbed(levels, "2n-icx") + _testbed(levels, "3n-alt"))
    # Each testbed has its own job: the builds differ, the DUT version is the same.
    assert len(found) == 1
    incident = found[0]
    assert incident.kind == "regression"
    assert len(incident.members) == 10
    assert incident.first_bad.dut_version == "26.02-rc0~30"
    assert incident.last_good is not None and incident.last_good.dut_version == "26.02-rc0~29"
    assert "testbed" not in incident.shared
    spread = incident.spread
    assert spread is not None and spread.count == 10
    assert spread.minimum == pytest.approx(-0.14)
    assert spread.maximum == pytest.approx(-0.10)
    assert spread.median == pytest.approx(-0.12)
    # The largest change first.
    assert _names(incident)[:2] == ["case-4", "case-4"]


def test_one_build_apart_on_two_testbeds_is_two_incidents() -> None:
    found = _incidents(_testbed({"a": _step(30)}, "2n-icx") + _testbed({"b": _step(31)}, "3n-alt"))
    assert [(incident.kind, _names(incident)) for incident in found] == [
        ("regression", ["b"]),  # newest first
        ("regression", ["a"]),
    ]
    assert found[0].shared["testbed"] == "3n-alt"
    assert found[1].first_bad.build == "30" and found[1].last_good.build == "29"  # type: ignore[union-attr]


def test_one_build_joins_series_whose_builds_ran_no_version() -> None:
    data = [
        replace(build, dut_version=None)
        for build in builds(
            {"a": _step(30), "b": _step(30, 5e6, 6e6), "c": _step(33)}, range(1, LAST + 1)
        )
    ]
    found = _incidents(data)
    assert [(incident.kind, _names(incident)) for incident in found] == [
        ("regression", ["c"]),
        ("regression", ["a"]),
        ("progression", ["b"]),  # same build, other kind: its own incident
    ]


def test_incidents_order_newest_then_larger_then_more_urgent() -> None:
    levels = {
        "old-1": _step(20),
        "old-2": _step(20),
        "fail": lambda n: 7e6 if n < 35 else None,
        "rise": _step(35, 5e6, 6e6),
        "drop": _step(35),
        "drop-2": _step(35, 10e6, 7e6),
    }
    found = _incidents(builds(levels, range(1, LAST + 1)))
    assert [(incident.kind, _names(incident)) for incident in found] == [
        ("regression", ["drop-2", "drop"]),
        ("failure", ["fail"]),
        ("progression", ["rise"]),
        ("regression", ["old-1", "old-2"]),
    ]
    failure = found[1]
    assert failure.spread is None
    assert failure.last_good is not None and failure.last_good.build == "34"


def test_shared_dimensions_are_those_every_member_has() -> None:
    found = _incidents(
        builds({"a": _step(30), "b": _step(30)}, range(1, LAST + 1), thread_core="1T1C")
    )
    assert found[0].shared["testbed"] == "2n-skx"
    assert found[0].shared["cores"] == "1T1C"


def _run(build: int, status: str = "PASS", average: float | None = 1.0) -> series.Run:
    version = "v" if build >= 4 else None  # builds 4 and 5 ran one DUT version
    time = build_time(build)
    return series.Run(time, JOB, str(build), version, None, status, "", (), average, 0.0)


def test_the_incident_is_bounded_by_its_earliest_member() -> None:
    runs = tuple(_run(n) for n in range(1, 6))
    history = series.TestHistory("t", "t", "t", "s", (), None, None, "mrr", "pps", runs)
    late = Anomaly("src", "regression", history, 4, -0.1, last_good_run=runs[3])
    early = Anomaly(
        "src", "regression", replace(history, key="u", name="u"), 3, -0.2, last_good_run=runs[2]
    )
    found = incidents([late, early])
    assert len(found) == 1
    assert found[0].first_bad.build == "4"
    assert found[0].last_good is not None and found[0].last_good.build == "3"
    assert _names(found[0]) == ["u", "t"]


def test_gate_verdicts_make_the_same_incidents() -> None:
    levels = {"a": _step(LAST), "b": _step(LAST), "gone": lambda n: 7e6 if n < 38 else None}
    data = builds(levels, range(1, LAST + 1))
    verdicts = judge_latest("mrr", histories(data, "mrr", keep_failing=True), data, TrendOptions())
    found = incidents(from_verdicts(verdicts))
    assert [(incident.kind, _names(incident)) for incident in found] == [
        ("regression", ["a", "b"]),
        ("failure", ["gone"]),
    ]
    assert found[1].first_bad.build == "38"


def test_acknowledged_verdicts_are_no_incidents_members() -> None:
    levels = {"a": _step(LAST), "b": _step(LAST)}
    data = builds(levels, range(1, LAST + 1))
    verdicts = judge_latest("mrr", histories(data, "mrr"), data, TrendOptions())
    known = [replace(v, acknowledged="bisected") if v.history.name == "a" else v for v in verdicts]
    assert [_names(incident) for incident in incidents(from_verdicts(known))] == [["b"]]
