"""A graph reads its histories' columns: the same figure, whether their runs are
made or not, and no run made for a point that is not marked over."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from sphinxcontrib_trending.analysis import trend_per_run
from sphinxcontrib_trending.analysis.excluded import ExcludedRun, Exclusions
from sphinxcontrib_trending.analysis.history import TestHistory, history_key
from sphinxcontrib_trending.analysis.summary import TestTrend, TrendOptions, summarize
from sphinxcontrib_trending.analysis.test_run import ColumnRuns, Run, RunColumns
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.render.figure import X_AXES, trend_figure
from sphinxcontrib_trending.render.latency_curves import PERCENTILE_RUNS
from sphinxcontrib_trending.render.script_data import script_json
from tests.latency_data import hdrh_of

START = datetime(2026, 5, 1, 6, 0, tzinfo=timezone.utc)
LATENCY = "latency_pdr50_forward_avg"
LINKS = LinkTemplates(
    build="https://ci.example/{job}/{build}",
    compare="https://git.example/compare/{last_good}..{first_bad}",
)
FAILED, UNMEASURED, OUTLIER, EXCLUDED, CHANGE = 3, 5, 8, 13, 11
RUNS = 60


def _run(number: int, metric: str) -> Run:
    """Run ``number`` of a series that steps up at CHANGE, with a failed run, one that
    passed unmeasured, a one-run spike, a curated one, a lone trial and a NaN trial."""
    latency = metric == LATENCY
    level = (10.0 if number < CHANGE else 15.0) * (1.0 if latency else 1e6)
    if number == OUTLIER:
        level *= 3
    values: tuple[float, ...] = (level * 0.99, level * 1.01, level)
    if number == 2:
        values = (level,)
    if number == 6:
        values = (level, float("nan"), level * 1.02)
    if number in (FAILED, UNMEASURED):
        values = ()
    average = sum(v for v in values if v == v) / max(1, sum(v == v for v in values))
    measured = bool(values)
    percentiles = (("p50", level - 1), ("p99", level + 5)) if latency and number % 4 else ()
    histograms = ((f"{LATENCY[:-4]}_hdrh", hdrh_of(9, 10, 12)),) if latency and number > 12 else ()
    job = "csit-weekly-<b>%{x}</b>" if number % 5 == 0 else "csit-daily"
    return Run(
        time=START + timedelta(days=number),
        job=job,
        build=str(number),
        dut_version=None if number == 9 else f"26.06-rc0~{number}",
        testbed="2n-icx",
        status="FAIL" if number == FAILED else "PASS",
        message="no traffic <received>" if number == FAILED else "",
        values=values,
        average=average if measured else None,
        stdev=(0.0 if len(values) == 1 else level * 0.01) if measured else None,
        hosts=f"10.0.0.{number % 2}",
        percentiles=percentiles,
        histograms=histograms,
    )


def _trends(runs: str) -> list[TestTrend]:
    """Two series, one of a latency, their runs tuples or ``ColumnRuns``."""
    exclusions = Exclusions((ExcludedRun("testbed rebooted", "excluded.toml:1", build="13"),))
    trends = []
    for metric, unit in ((LATENCY, "us"), ("mrr", "pps")):
        made = tuple(_run(number, metric) for number in range(RUNS))
        history = TestHistory(
            key=history_key("2n-icx", f"tests.{metric}"),
            test_id=f"tests.{metric}",
            name=f"64b-{metric}",
            suite="tests",
            tags=(),
            testbed="2n-icx",
            thread_core=None,
            metric=metric,
            unit=unit,
            runs=made if runs == "tuples" else ColumnRuns(RunColumns.of_runs(made)),
        )
        options = TrendOptions(direction="lower" if metric == LATENCY else "higher")
        options = replace(options, exclusions=exclusions)
        trends.append(summarize(history, options, made[-1].time))
    return trends


def _names(figure: dict) -> list[str]:
    return [trace["name"] for trace in figure["data"]]


@pytest.mark.parametrize("x_axis", X_AXES)
@pytest.mark.parametrize("trials", [False, True])
def test_a_figure_of_column_runs_is_the_figure_of_their_tuples(x_axis: str, trials: bool) -> None:
    drawn = [
        trend_figure(_trends(runs), "T", trials=trials, x_axis=x_axis, links=LINKS)
        for runs in ("tuples", "columns")
    ]
    assert script_json(drawn[0]) == script_json(drawn[1])
    names = " ".join(_names(drawn[0]))
    for part in ("failed", "anomalies", "outliers", "excluded", *(["trials"] * trials)):
        assert f"64b-mrr {part}" in names and f"64b-{LATENCY} {part}" in names
    assert drawn[0]["percentiles"]["sets"]


def test_the_points_are_the_measured_runs_but_the_curated_one() -> None:
    (latency, _mrr) = _trends("columns")
    markers = trend_figure([latency], links=LINKS)["data"][0]
    shown = [n for n in range(RUNS) if n not in (FAILED, UNMEASURED, EXCLUDED)]
    assert len(markers["y"]) == len(shown)
    runs = latency.history.runs
    assert markers["y"] == [runs[n].average for n in shown]
    assert markers["customdata"][0][0] == runs[0].stdev
    assert all(type(value) is float for value in [*markers["y"], markers["customdata"][0][0]])


class _CountingColumns(RunColumns):
    """Columns that count the runs made of them."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.made_runs = 0

    def run(self, index: int) -> Run:
        self.made_runs += 1
        return super().run(index)

    def made(self) -> tuple[Run, ...]:
        self.made_runs += len(self)
        return super().made()


@pytest.mark.parametrize("x_axis", X_AXES)
def test_a_figure_makes_runs_only_for_the_points_marked_over_them(x_axis: str) -> None:
    trends = _trends("columns")
    counted = []
    for at, trend in enumerate(trends):
        columns = _CountingColumns.of_runs(tuple(trend.history.runs))
        counted.append(columns)
        trends[at] = replace(trend, history=replace(trend.history, runs=ColumnRuns(columns)))
    figure = trend_figure(trends, trials=True, x_axis=x_axis, links=LINKS)
    marked = sum(
        len(trace["x"])
        for trace in figure["data"]
        if trace["name"].endswith((" anomalies", " outliers", " excluded"))
    )
    # a few runs per marked point (an anomaly's range reads the run before it) and
    # per percentile graph of a latency's newest runs, of the series' 120 runs
    assert marked < 10
    assert sum(columns.made_runs for columns in counted) <= 4 * marked + 2 * PERCENTILE_RUNS


def test_every_run_is_a_point_when_all_measured() -> None:
    trend = _trends("tuples")[1]
    level = [5e6 + (1e6 if n >= 30 else 0.0) + (n % 3) * 1e4 for n in range(RUNS)]
    runs = tuple(
        run._replace(values=(level[n],), average=level[n], stdev=0.0, status="PASS")
        for n, run in enumerate(trend.history.runs)
    )
    history = replace(trend.history, runs=runs)
    again = summarize(history, TrendOptions(), runs[-1].time)
    data = trend_figure([again])["data"]
    assert data[0]["y"] == [value * 1e-6 for value in level]
    assert [trace["name"] for trace in data][:2] == ["64b-mrr", "64b-mrr trend"]
    assert not any(trace["name"].endswith(" failed") for trace in data)
    levels = trend_per_run(again.result)
    steps = [n for n in range(RUNS) if n == 0 or levels[n] != levels[n - 1]]
    steps += [RUNS - 1] if steps[-1] != RUNS - 1 else []
    assert len(steps) == 3
    assert data[1]["x"] == [data[0]["x"][n] for n in steps]
    assert data[1]["y"] == [levels[n] * 1e-6 for n in steps]


@pytest.mark.parametrize("x_axis", X_AXES)
def test_a_figure_drawn_with_a_shared_layout_is_the_same_figure(x_axis: str) -> None:
    """A graph per test shares one layout on the time axis; the figures do not change."""
    trends = _trends("columns")
    for title in ("", "T"):
        alone = [trend_figure([trend], title, x_axis=x_axis, links=LINKS) for trend in trends]
        shared = [
            trend_figure([trend], title, x_axis=x_axis, links=LINKS, shared_layout=True)
            for trend in trends
        ]
        assert list(map(script_json, shared)) == list(map(script_json, alone))
        again = trend_figure([trends[0]], title, x_axis=x_axis, links=LINKS, shared_layout=True)
        assert (again["layout"] is shared[0]["layout"]) == (x_axis == "time")
        assert shared[0]["layout"] is not shared[1]["layout"]  # another unit's label
