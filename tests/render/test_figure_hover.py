"""The runs' hover and trend line, kept small, show what the full per-point data showed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sphinxcontrib_trending.analysis import summary, trend_per_run
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.display import display_unit
from sphinxcontrib_trending.render.figure import _hover_template, _point_data, trend_figure
from tests import hand_built
from tests.hover import hover_lines, hover_text


def _level(number: int) -> float:
    return 10e6 if number < 12 else 8e6


def _trends(*, second_job: bool, varying_hosts: bool) -> list[summary.TestTrend]:
    builds = hand_built.builds({"regress": _level, "flaky": _level}, range(1, 21))
    changed = []
    for build in builds:
        number = int(build.build)
        if second_job and number % 3 == 0:
            build = replace(build, job="csit-vpp-perf-mrr-weekly-<b>%{x}</b>")
        if varying_hosts:
            hosts = (("hosts", f"10.0.0.{number % 2}"),)
            build = replace(
                build, tests=tuple(replace(test, attributes=hosts) for test in build.tests)
            )
        if number == 7:  # a failed run: no value, no point, a gap in the trend line
            build = replace(build, tests=(replace(build.tests[0], status="FAIL", measurements=()),))
        changed.append(build)
    end = changed[-1].time
    return [summarize(history, TrendOptions(), end) for history in histories(changed, "mrr")]


@pytest.mark.parametrize("second_job", [False, True])
@pytest.mark.parametrize("varying_hosts", [False, True])
def test_each_runs_hover_reads_as_its_full_point_data(
    second_job: bool, varying_hosts: bool
) -> None:
    trends = _trends(second_job=second_job, varying_hosts=varying_hosts)
    figure = trend_figure(trends)
    for trend in trends:
        markers = next(trace for trace in figure["data"] if trace["name"] == trend.history.name)
        unit = display_unit(trend.history.unit)
        measured = [run for run in trend.history.runs if run.measured]
        assert len(markers["x"]) == len(measured)
        for point, run in enumerate(measured):
            full = {
                "x": markers["x"],
                "y": markers["y"],
                "customdata": {point: _point_data(run, unit)},
                "hovertemplate": _hover_template(unit),
            }
            assert hover_text(markers, point) == hover_text(full, point)
        shared = markers.get("meta", ["", ""])
        assert bool(shared[0]) is not second_job and bool(shared[1]) is not varying_hosts


def test_a_job_name_in_meta_is_escaped_like_any_data_text() -> None:
    (regress, _) = _trends(second_job=True, varying_hosts=False)
    markers = trend_figure([regress])["data"][0]
    lines = [hover_lines(markers, point)[4] for point in range(len(markers["x"]))]
    assert "CI job build: csit-vpp-perf-mrr-weekly-&lt;b&gt;%&#123;x}&lt;/b&gt;/3" in lines


@pytest.mark.parametrize("varying_hosts", [False, True])
def test_the_trend_line_steps_through_the_same_levels_as_one_point_per_run(
    varying_hosts: bool,
) -> None:
    trends = _trends(second_job=False, varying_hosts=varying_hosts)
    figure = trend_figure(trends)
    for trend in trends:
        name = trend.history.name
        markers = next(trace for trace in figure["data"] if trace["name"] == name)
        line = next(trace for trace in figure["data"] if trace["name"] == f"{name} trend")
        assert line["line"]["shape"] == "hv"
        assert len(line["x"]) < len(markers["x"])
        levels = trend_per_run(trend.result)
        expected = [levels[i] / 1e6 for i, run in enumerate(trend.history.runs) if run.measured]
        # "hv": from each point the line holds its level until the next point's time
        for time, level in zip(markers["x"], expected, strict=True):
            drawn = [y for x, y in zip(line["x"], line["y"], strict=True) if x <= time][-1]
            assert drawn == pytest.approx(level)
        assert line["x"][0] == markers["x"][0] and line["x"][-1] == markers["x"][-1]
