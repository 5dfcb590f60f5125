"""Job statistics: a table of builds and a small graph per job.

The graph stacks passed, failed and skipped tests per build as bars and
draws the build duration as a line on a second axis, so a job whose
failures climb or whose run time creeps up shows at a glance.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sphinxcontrib_trending.analysis.job_stats import BuildStats, JobStats
from sphinxcontrib_trending.render.figure import _escaped, date_axis, plotly_time
from sphinxcontrib_trending.render.table import LABEL, NUMBER, Row, Table

HEADER = (
    "CI job build",
    "Time",
    "DUT build",
    "Passed [#]",
    "Failed [#]",
    "Skipped [#]",
    "Duration [h:mm]",
)
KINDS = (LABEL, LABEL, LABEL, NUMBER, NUMBER, NUMBER, NUMBER)

PASSED_COLOR = "#2ca02c"
FAILED_COLOR = "#d62728"
SKIPPED_COLOR = "#8c8c8c"
DURATION_COLOR = "#1f77b4"


def format_duration(duration: timedelta | None) -> str:
    """Hours and minutes, ``1:05``; blank when the build has no duration."""
    if duration is None:
        return ""
    minutes = round(duration.total_seconds() / 60)
    return f"{minutes // 60}:{minutes % 60:02d}"


def summary(stats: JobStats) -> str:
    """One line under the job's name: how many builds, how many of them with failures."""
    builds = len(stats.builds)
    text = f"{builds} build{'' if builds == 1 else 's'}"
    if builds:
        text += f", {stats.failed_builds} with failed tests"
    return text


def _row(build: BuildStats) -> Row:
    classes = ("trending-failure",) if build.failed else ()
    return Row(
        cells=(
            build.job_build,
            build.time.strftime("%Y-%m-%d %H:%M %Z").strip(),
            build.dut_version or "",
            str(build.passed),
            str(build.failed),
            str(build.skipped),
            format_duration(build.duration),
        ),
        classes=classes,
    )


def job_table(stats: JobStats) -> Table:
    """The job's builds, newest first: the one a reader checks is on top."""
    rows = tuple(_row(build) for build in reversed(stats.builds))
    return Table(caption=f"{stats.job}: {summary(stats)}", header=HEADER, rows=rows, kinds=KINDS)


def _hover(build: BuildStats) -> str:
    lines = [
        f"CI job build: {_escaped(build.job_build)}",
        f"DUT version: {_escaped(build.dut_version)}",
        f"passed: {build.passed}, failed: {build.failed}, skipped: {build.skipped}",
        f"duration: {format_duration(build.duration) or 'unknown'}",
    ]
    return "<br>".join(lines)


def _bars(name: str, builds: tuple[BuildStats, ...], counts: list[int], color: str) -> dict:
    return {
        "type": "bar",
        "name": name,
        "x": [plotly_time(build.time) for build in builds],
        "y": counts,
        "text": [_hover(build) for build in builds],
        "hoverinfo": "text",
        "textposition": "none",
        "marker": {"color": color},
    }


def job_figure(stats: JobStats) -> dict[str, Any]:
    """Stacked test outcomes per build, and the build duration in minutes on the right."""
    builds = stats.builds
    timed = [build for build in builds if build.duration is not None]
    data: list[dict[str, Any]] = [
        _bars("Passed", builds, [build.passed for build in builds], PASSED_COLOR),
        _bars("Failed", builds, [build.failed for build in builds], FAILED_COLOR),
    ]
    if any(build.skipped for build in builds):
        data.append(_bars("Skipped", builds, [build.skipped for build in builds], SKIPPED_COLOR))
    data.append(
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": "Duration",
            "yaxis": "y2",
            "x": [plotly_time(build.time) for build in timed],
            "y": [round(build.duration.total_seconds() / 60, 1) for build in timed],
            "text": [_hover(build) for build in timed],
            "hoverinfo": "text",
            "line": {"color": DURATION_COLOR, "width": 1.5},
            "marker": {"size": 5},
        }
    )
    return {
        "data": data,
        "layout": {
            "title": {"text": _escaped(stats.job)},
            "barmode": "stack",
            "hovermode": "closest",
            "showlegend": True,
            "legend": {"orientation": "h", "y": -0.3},
            "margin": {"l": 60, "r": 60, "t": 50, "b": 40},
            "xaxis": date_axis(),
            "yaxis": {"title": {"text": "Tests [#]"}, "rangemode": "tozero"},
            "yaxis2": {
                "title": {"text": "Duration [min]"},
                "overlaying": "y",
                "side": "right",
                "rangemode": "tozero",
                "showgrid": False,
            },
        },
        "config": {"displaylogo": False, "responsive": True},
    }
