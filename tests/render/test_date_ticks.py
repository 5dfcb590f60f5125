"""Date ticks that tell apart two builds of one day, in the interactive and the static graph."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from sphinxcontrib_trending.analysis.job_stats import job_stats
from sphinxcontrib_trending.render.figure import DATE_TICK_FORMATS, trend_figure
from sphinxcontrib_trending.render.job_stats import job_figure
from sphinxcontrib_trending.render.static_figure import date_ticks
from tests import hand_built
from tests.render.test_render_tables import _trends

HOUR_MS = 3_600_000
MORNING = datetime(2026, 1, 5, 6, 0)
EVENING = datetime(2026, 1, 5, 18, 0)


def _months(bound: str) -> int:
    return int(bound[1:])


def _format_for(dtick: float | str) -> str:
    """The tick format Plotly picks for a tick spacing: the stop whose range holds it.

    Spacings are milliseconds, or ``M<n>`` for n months; any month is longer
    than any millisecond spacing below a month's stop.
    """
    for stop in DATE_TICK_FORMATS:
        low, high = stop["dtickrange"]
        if isinstance(dtick, str):
            above = low is None or (isinstance(low, str) and _months(low) <= _months(dtick))
            below = high is None or (isinstance(high, str) and _months(dtick) < _months(high))
        else:
            above = low is None or (not isinstance(low, str) and low <= dtick)
            below = high is None or isinstance(high, str) or dtick < high
        if above and below:
            return stop["value"]
    raise AssertionError(f"no tick format for {dtick}")


@pytest.mark.parametrize("dtick", [HOUR_MS, 6 * HOUR_MS, 12 * HOUR_MS])
def test_ticks_under_a_day_apart_show_the_hour(dtick: int) -> None:
    text = _format_for(dtick)
    assert MORNING.strftime(text) != EVENING.strftime(text)


def test_ticks_days_apart_show_the_day_and_a_year_shows_months() -> None:
    day = _format_for(24 * HOUR_MS)
    assert MORNING.strftime(day) != (MORNING + timedelta(days=1)).strftime(day)
    assert "%H" not in day
    month = _format_for("M3")
    assert MORNING.strftime(month) == "Jan 2026"
    assert _format_for("M24") == "%Y"


def test_trend_and_job_graphs_share_the_adaptive_axis() -> None:
    builds = hand_built.builds({"a": lambda n: 5e6}, range(1, 4))
    figures = [trend_figure(_trends(builds)), job_figure(job_stats(builds)[0])]
    for figure in figures:
        axis = figure["layout"]["xaxis"]
        assert "tickformat" not in axis
        assert [stop["value"] for stop in axis["tickformatstops"]] == [
            stop["value"] for stop in DATE_TICK_FORMATS
        ]
        assert axis["title"]["text"] == "Date [UTC]"


def test_static_ticks_tell_apart_two_builds_of_one_day() -> None:
    from matplotlib.figure import Figure

    drawing = Figure()
    axes = drawing.subplots()
    axes.plot([MORNING, EVENING], [1.0, 2.0])
    date_ticks(axes)
    drawing.canvas.draw()
    labels = [label.get_text() for label in axes.get_xticklabels() if label.get_text()]
    assert len(labels) >= 2 and len(set(labels)) == len(labels)
    assert any(":" in label for label in labels)  # hours, not a repeated day
