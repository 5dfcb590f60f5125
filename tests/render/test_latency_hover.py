"""A latency graph's hover shows the run's HDR percentiles; other graphs are unchanged."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult
from sphinxcontrib_trending.render.figure import trend_figure
from tests.hover import hover_lines, hover_text

START = datetime(2026, 3, 1, tzinfo=timezone.utc)
BASE = "latency_pdr50_forward"


def _build(number: int, with_histogram: bool) -> Build:
    average = 10.0 if number < 6 else 15.0
    measurements = [
        Measurement(f"{BASE}_avg", "us", (average,)),
        Measurement("mrr", "pps", (1e6,)),
    ]
    if with_histogram:
        measurements += [
            Measurement(f"{BASE}_p50", "us", (average - 1,)),
            Measurement(f"{BASE}_p90", "us", (average + 2,)),
            Measurement(f"{BASE}_p99", "us", (average + 5,)),
            Measurement(f"{BASE}_p999", "us", (average + 9,)),
        ]
    test = TestResult(
        test_id="tests.l2.64b-1c-eth-l2bdbasemaclrn-ndrpdr",
        name="64b-1c-eth-l2bdbasemaclrn-ndrpdr",
        suite="tests.l2",
        tags=(),
        status="PASS",
        start=None,
        message="",
        measurements=tuple(measurements),
    )
    return Build("job", str(number), START + timedelta(days=number), None, None, "x", (test,))


def _figure(metric: str) -> dict:
    builds = [_build(number, with_histogram=number != 3) for number in range(1, 11)]
    (history,) = histories(builds, metric)
    end = builds[-1].time
    trend = summarize(history, TrendOptions(direction="lower"), end)
    return trend_figure([trend])


def test_latency_points_carry_their_percentiles() -> None:
    figure = _figure(f"{BASE}_avg")
    markers = figure["data"][0]
    texts = [hover_lines(markers, point)[-1] for point in range(len(markers["x"]))]
    assert texts[0] == "percentiles [us]: p50 9.000, p90 12.000, p99 15.000, p99.9 19.000"
    assert texts[2] == "percentiles: no histogram"
    assert texts[-1].startswith("percentiles [us]: p50 14.000,")
    anomalies = next(trace for trace in figure["data"] if trace["name"].endswith("anomalies"))
    assert len(anomalies["customdata"]) == 1
    lines = hover_lines(anomalies, 0)
    assert lines[0].startswith("regression")
    assert lines[-1].startswith("percentiles [us]: p50 14.000")


def test_a_percentile_graph_shows_all_percentiles_too() -> None:
    markers = _figure(f"{BASE}_p99")["data"][0]
    assert markers["y"][0] == 15.0
    assert hover_lines(markers, 0)[-1].startswith("percentiles [us]: p50 9.000, p90 12.000")


def test_other_metrics_have_no_percentile_line() -> None:
    markers = _figure("mrr")["data"][0]
    assert not any("percentiles" in hover_text(markers, point) for point in range(10))
