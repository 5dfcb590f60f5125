"""A latency trend carries its newest runs' percentile graphs, for a click to open."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.latency_curves import nines
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult
from sphinxcontrib_trending.render.figure import trend_figure
from sphinxcontrib_trending.render.latency_curves import PERCENTILE_RUNS
from sphinxcontrib_trending.render.script_data import script_json
from tests.latency_data import hdrh_of

START = datetime(2026, 3, 1, tzinfo=timezone.utc)
EVIL = "64b-1c-<img src=x onerror=alert(1)>-ndrpdr"


def _test(number: int, name: str = "64b-1c-eth-l2bdbasemaclrn-ndrpdr") -> TestResult:
    """Build ``number``: forward latency 10 + number us at 50 % PDR, reverse twice that."""
    forward, reverse = 10 + number, 20 + 2 * number
    return TestResult(
        test_id=f"tests.l2.{name}",
        name=name,
        suite="tests.l2",
        tags=(),
        status="PASS",
        start=None,
        message="",
        measurements=(
            Measurement("latency_pdr50_forward_avg", "us", (float(forward),)),
            Measurement("mrr", "pps", (1e6,)),
        ),
        attributes=(
            ("latency_pdr0_forward_hdrh", hdrh_of(3, 4)),
            ("latency_pdr50_forward_hdrh", hdrh_of(forward, forward, forward + 5)),
            ("latency_pdr50_reverse_hdrh", hdrh_of(reverse)),
        ),
    )


def _figure(metric: str, builds: int = 14, name: str = "", **options: object) -> dict:
    made = [
        Build(
            "job",
            str(number),
            START + timedelta(days=number),
            "26.02-rc0",
            None,
            "x",
            (_test(number, name) if name else _test(number),),
        )
        for number in range(1, builds + 1)
    ]
    (history,) = histories(made, metric)
    trend = summarize(history, TrendOptions(direction="lower"), made[-1].time)
    return trend_figure([trend], **options)


def test_the_newest_runs_each_open_their_curves_at_every_load_and_direction() -> None:
    views = _figure("latency_pdr50_forward_avg")["percentiles"]
    assert len(views["sets"]) == PERCENTILE_RUNS
    newest = views["sets"][-1]
    assert newest["title"] == (
        "64b-1c-eth-l2bdbasemaclrn-ndrpdr<br>job/14, 26.02-rc0, 2026-03-15 00:00:00 UTC"
    )
    names = [trace["name"] for trace in newest["data"]]
    assert names == ["no load, forward", "50 % PDR, forward", "50 % PDR, reverse"]
    forward = newest["data"][1]
    # 24, 24, 29 us: two thirds of the samples at 24, the rest at 29
    assert forward["y"] == [24.0, 29.0, 29.0]
    assert forward["x"][0] == 1.0
    assert forward["x"][1] == pytest.approx(nines(200 / 3)) == pytest.approx(3.0)
    assert forward["customdata"][-1] == 100.0
    assert forward["line"]["shape"] == "hv"
    assert newest["data"][2]["y"] == [48.0, 48.0]
    # the runs trace's points 4..13 (builds 5..14) open sets 0..9, oldest first
    assert [p for p in views["points"] if p[0] == 0] == [
        [0, point, point - 4] for point in range(4, 14)
    ]
    assert views["layout"]["xaxis"]["type"] == "log"


def test_every_point_opens_the_graph_of_its_own_run() -> None:
    """Runs, and the anomaly markers over them, by the run's time the titles name."""
    figure = _figure("latency_pdr50_forward_avg", builds=30)
    views = figure["percentiles"]
    assert {trace for trace, _point, _set in views["points"]} > {0}  # a marker opens one too
    for trace, point, chosen in views["points"]:
        time = figure["data"][trace]["x"][point]
        assert views["sets"][chosen]["title"].endswith(f"{time} UTC")


def test_the_bound_is_an_option_and_zero_turns_the_graphs_off() -> None:
    assert len(_figure("latency_pdr50_forward_avg", percentile_runs=3)["percentiles"]["sets"]) == 3
    assert "percentiles" not in _figure("latency_pdr50_forward_avg", percentile_runs=0)


def test_other_metrics_carry_no_curves() -> None:
    assert "percentiles" not in _figure("mrr")


def test_titles_are_escaped_and_the_data_file_stays_inert() -> None:
    figure = _figure("latency_pdr50_forward_avg", name=EVIL)
    title = figure["percentiles"]["sets"][0]["title"]
    assert "<img" not in title and "&lt;img src=x onerror=alert(1)&gt;" in title
    assert "<" not in script_json(figure)


def test_a_failed_newest_run_opens_nothing_and_the_runs_before_it_count() -> None:
    made = [
        Build("job", str(n), START + timedelta(days=n), None, None, "x", (_test(n),))
        for n in range(1, 8)
    ]
    failed = TestResult(
        test_id=made[0].tests[0].test_id,
        name=made[0].tests[0].name,
        suite="tests.l2",
        tags=(),
        status="FAIL",
        start=None,
        message="link down",
        attributes=made[0].tests[0].attributes,  # histograms, but no measured latency
    )
    made.append(Build("job", "8", START + timedelta(days=8), None, None, "x", (failed,)))
    (history,) = histories(made, "latency_pdr50_forward_avg")
    trend = summarize(history, TrendOptions(direction="lower"), made[-1].time)
    views = trend_figure([trend], percentile_runs=3)["percentiles"]
    assert [s["title"].rsplit("<br>", 1)[1].split(",")[0] for s in views["sets"]] == [
        "job/5",
        "job/6",
        "job/7",
    ]
