"""The trial cloud behind the run averages, and the hosts in the hover."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.render.figure import trend_figure
from tests import hand_built
from tests.hover import hover_lines

HOSTS = "10.30.51.49 10.30.51.50"


def _trends(with_hosts: bool):
    builds = hand_built.builds({"stable": lambda n: 3e6}, range(1, 6))
    if with_hosts:
        builds = [
            replace(
                build,
                tests=tuple(replace(t, attributes=(("hosts", HOSTS),)) for t in build.tests),
            )
            for build in builds
        ]
    end = builds[-1].time
    return [summarize(history, TrendOptions(), end) for history in histories(builds, "mrr")]


def test_trials_are_off_by_default() -> None:
    figure = trend_figure(_trends(False))
    assert not any(trace["name"].endswith(" trials") for trace in figure["data"])


def test_trials_are_a_faint_cloud_behind_the_averages() -> None:
    figure = trend_figure(_trends(False), trials=True)
    cloud, markers = figure["data"][:2]
    assert cloud["name"] == "stable trials" and markers["name"] == "stable"
    # five runs of ten trials each, at their run's time, in Mpps
    assert len(cloud["x"]) == len(cloud["y"]) == 50
    assert cloud["x"][:10] == [markers["x"][0]] * 10
    assert cloud["y"][:2] == pytest.approx([2.95, 3.05])
    assert cloud["hoverinfo"] == "skip" and cloud["showlegend"] is False
    assert cloud["legendgroup"] == markers["legendgroup"]
    assert cloud["marker"]["color"] == markers["marker"]["color"]
    assert 0 < cloud["opacity"] < 1 and cloud["marker"]["size"] < markers["marker"]["size"]


def test_the_hover_names_the_testbed_hosts() -> None:
    markers = trend_figure(_trends(True))["data"][0]
    assert hover_lines(markers, 0)[-1] == "testbed: 2n-skx (hosts 10.30.51.49, 10.30.51.50)"
    plain = trend_figure(_trends(False))["data"][0]
    assert hover_lines(plain, 0)[-1] == "testbed: 2n-skx"
