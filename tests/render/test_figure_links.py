"""Graph clicks: a run opens its CI build's page, an anomaly the commits of its range."""

from __future__ import annotations

from dataclasses import replace

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TestTrend, TrendOptions, summarize
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.render.figure import (
    CLICK_OPENS_BUILD,
    CLICK_OPENS_VERSION,
    trend_figure,
)
from sphinxcontrib_trending.render.script_data import script_json
from tests import hand_built
from tests.hover import hover_lines

HOSTILE_VERSION = '9"><script>alert(1)</script>&x'
LINKS = LinkTemplates(
    "https://ci.example.org/{job}/{build}",
    "https://git.example.org/tag/{version}",
    "https://git.example.org/compare/{last_good}...{first_bad}",
)


def _trends(hostile: bool = False) -> list[TestTrend]:
    """A drop at build 12, the last run before it with ``HOSTILE_VERSION`` if asked,
    and a failed run at build 7."""
    levels = {"drop": lambda number: 10e6 if number < 12 else 8e6}
    builds = []
    for build in hand_built.builds(levels, range(1, 21)):
        if hostile and build.build == "11":
            build = replace(build, dut_version=HOSTILE_VERSION)
        if build.build == "7":
            build = replace(build, tests=(replace(build.tests[0], status="FAIL", measurements=()),))
        builds.append(build)
    end = builds[-1].time
    return [summarize(history, TrendOptions(), end) for history in histories(builds, "mrr")]


def _trace(figure: dict, suffix: str) -> dict:
    return next(trace for trace in figure["data"] if trace["name"] == f"drop{suffix}")


def test_each_run_links_to_its_build_and_says_so_on_hover() -> None:
    (trend,) = trends = _trends()
    runs = _trace(trend_figure(trends, links=LINKS), "")
    measured = [run for run in trend.history.runs if run.measured]
    assert runs["trending_links"] == [
        f"https://ci.example.org/{run.job}/{run.build}" for run in measured
    ]
    assert hover_lines(runs, 0)[-1] == CLICK_OPENS_BUILD
    failed = _trace(trend_figure(trends, links=LINKS), " failed")
    assert failed["trending_links"] == [f"https://ci.example.org/{hand_built.JOB}/7"]


def test_with_only_a_version_template_a_run_opens_its_versions_page() -> None:
    trends = _trends()
    runs = _trace(trend_figure(trends, links=LinkTemplates(version=LINKS.version)), "")
    assert runs["trending_links"][0] == "https://git.example.org/tag/26.02-rc0~1"
    assert hover_lines(runs, 0)[-1] == CLICK_OPENS_VERSION


def test_an_anomaly_names_its_range_and_links_the_commits_between() -> None:
    trends = _trends()
    anomalies = _trace(trend_figure(trends, links=LINKS), " anomalies")
    assert anomalies["trending_links"] == [
        "https://git.example.org/compare/26.02-rc0~11...26.02-rc0~12"
    ]
    lines = hover_lines(anomalies, 0)
    assert "range: 26.02-rc0~11 .. 26.02-rc0~12" in lines
    assert "click: opens the commits in this range" in lines


def test_without_templates_nothing_opens_but_the_range_is_named() -> None:
    figure = trend_figure(_trends())
    assert not any("trending_links" in trace for trace in figure["data"])
    anomalies = _trace(figure, " anomalies")
    assert "range: 26.02-rc0~11 .. 26.02-rc0~12" in hover_lines(anomalies, 0)
    assert not any(line.startswith("click:") for line in hover_lines(anomalies, 0))
    assert CLICK_OPENS_BUILD not in _trace(figure, "")["hovertemplate"]


def test_a_hostile_version_is_quoted_in_links_and_escaped_in_the_hover() -> None:
    figure = trend_figure(_trends(hostile=True), links=LINKS)
    anomalies = _trace(figure, " anomalies")
    (address,) = anomalies["trending_links"]
    assert address == (
        "https://git.example.org/compare/9%22%3E%3Cscript%3Ealert%281%29%3C%2Fscript%3E%26x"
        "...26.02-rc0~12"
    )
    (line,) = [line for line in hover_lines(anomalies, 0) if line.startswith("range: ")]
    assert line == "range: 9&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;x .. 26.02-rc0~12"
    text = script_json(figure)
    assert "<script>" not in text and '">' not in text
