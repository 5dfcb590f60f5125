"""A graph's runs placed by time, CI build or DUT version (per-commit histories)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.render.figure import trend_figure
from sphinxcontrib_trending.render.static_figure import write_static_figure
from tests import hand_built

END = datetime(2026, 2, 1, tzinfo=timezone.utc)


def _trend(versions: dict[int, str | None]):
    builds = hand_built.builds({"t": lambda n: 1e6 if n < 4 else 8e5}, range(1, 7))
    builds = [replace(build, dut_version=versions.get(int(build.build))) for build in builds]
    (history,) = histories(builds, "mrr")
    return summarize(history, TrendOptions(), END)


def test_the_version_axis_places_runs_by_version_in_the_order_they_ran() -> None:
    # commits are not ordered by name: the axis must follow the runs' times
    versions = {1: "f00d", 2: "beef", 3: "a<b>", 4: "0123", 5: None, 6: "cafe"}
    figure = trend_figure([_trend(versions)], x_axis="version")
    axis = figure["layout"]["xaxis"]
    assert axis["type"] == "category" and axis["title"]["text"] == "DUT version"
    # slanted, thinned labels; the legend at the figure's foot, clear of them
    assert (axis["nticks"], axis["tickangle"]) == (12, -30)
    assert figure["layout"]["legend"]["yref"] == "container"
    job = hand_built.JOB
    expected = ["f00d", "beef", "a&lt;b&gt;", "0123", f"{job}/5", "cafe"]
    assert axis["categoryarray"] == expected
    runs = figure["data"][0]
    assert runs["x"] == expected
    trend_line = figure["data"][1]
    assert trend_line["x"] == ["f00d", "0123", "cafe"]  # where the level changes, and the last


def test_the_build_axis_names_each_run_by_its_job_and_build() -> None:
    figure = trend_figure([_trend({})], x_axis="build")
    assert figure["layout"]["xaxis"]["categoryarray"] == [
        f"{hand_built.JOB}/{number}" for number in range(1, 7)
    ]


def test_time_stays_the_default_and_an_unknown_axis_is_refused() -> None:
    assert trend_figure([_trend({})])["layout"]["xaxis"]["type"] == "date"
    with pytest.raises(ValueError, match="x axis 'commit'"):
        trend_figure([_trend({})], x_axis="commit")


def test_a_printed_graph_labels_its_categories(tmp_path: Path) -> None:
    figure = trend_figure([_trend({1: "v1", 6: "v6"})], x_axis="version")
    target = tmp_path / "graph.svg"
    assert write_static_figure(figure, target) == len(figure["data"])
    svg = target.read_text()
    assert "v1" in svg and "DUT version" in svg
