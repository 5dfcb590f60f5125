"""Plotly trend figures as plain JSON-ready dicts.

Building dicts (Plotly's documented JSON schema) instead of
``plotly.graph_objects`` keeps a thousand-test site fast; the browser-side
plotly.js validates nothing we would not.  Every string that came from the
data is HTML-escaped, because Plotly renders names and hover text as a subset
of HTML.

Where conf.py has link templates (see :mod:`~sphinxcontrib_trending.conf.links`),
a trace carries each point's address in ``trending_links`` (a key Plotly
ignores and hands back with a click): a run opens its CI build's page, an
anomaly's ring the commits between its last good and first bad version.
The addresses are made by the templates, each value URL-quoted, and the
script opens only ``http(s)`` ones.
"""

from __future__ import annotations

import colorsys
import functools
import html
import itertools
import math
import operator
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.build_selection import SEPARATOR, build_name
from sphinxcontrib_trending.analysis.change_range import change_range
from sphinxcontrib_trending.analysis.environment_changes import labelled
from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.summary import TestTrend
from sphinxcontrib_trending.analysis.test_run import (
    FailedRuns,
    Run,
    RunBuild,
    RunColumns,
    failed_runs,
)
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.display import DisplayUnit, axis_label, display_unit
from sphinxcontrib_trending.render.latency_curves import PERCENTILE_RUNS, percentile_views
from sphinxcontrib_trending.render.page_runs import RUNS, PageRuns
from sphinxcontrib_trending.render.ranges import range_cell
from sphinxcontrib_trending.render.trend_levels import TrendLevels
from sphinxcontrib_trending.render.visible import visible

REGRESSION_COLOR = "#d62728"
PROGRESSION_COLOR = "#2ca02c"
MARKER_COLORS = {
    "regression": REGRESSION_COLOR,
    "progression": PROGRESSION_COLOR,
    "maybe regression": "#f19c99",
    "maybe progression": "#98d594",
}
ACKNOWLEDGED_COLOR = "#8c8c8c"
OUTLIER_COLOR = "#a0a0a0"
EXCLUDED_COLOR = "#c8c8c8"
EXCLUDED_SYMBOL = "x-thin-open"
OUTLIER_SYMBOL = "diamond-open"
RANGE_BUTTONS = (
    {"count": 14, "label": "2w", "step": "day", "stepmode": "backward"},
    {"count": 1, "label": "1m", "step": "month", "stepmode": "backward"},
    {"count": 2, "label": "2m", "step": "month", "stepmode": "backward"},
    {"count": 3, "label": "3m", "step": "month", "stepmode": "backward"},
    {"label": "all", "step": "all"},
)

_HOUR_MS = 3_600_000
_DAY_MS = 24 * _HOUR_MS
DATE_TICK_FORMATS = (
    {"dtickrange": [None, _DAY_MS], "value": "%b %d %H:%M"},
    {"dtickrange": [_DAY_MS, "M1"], "value": "%b %d"},
    {"dtickrange": ["M1", "M12"], "value": "%b %Y"},
    {"dtickrange": ["M12", None], "value": "%Y"},
)
"""Tick labels by the spacing Plotly picks (milliseconds, or months as ``M<n>``).

A fixed day format (``MMDD``) labelled every tick of a zoom into one day
alike, so two builds of a day could not be told apart: under a day apart
ticks show the hour, a year's view shows months.
"""


def date_axis() -> dict[str, Any]:
    """The time axis every trending graph shares: UTC dates, adaptive ticks, range buttons."""
    return {
        "type": "date",
        "tickformatstops": [dict(stop) for stop in DATE_TICK_FORMATS],
        "title": {"text": "Date [UTC]"},
        "rangeselector": {"buttons": list(RANGE_BUTTONS)},
    }


X_AXES = ("time", "build", "version")
"""What a graph's runs are placed by: when they ran, or in order of their CI build
or DUT version (per-commit histories, where the gaps between dates mean nothing)."""
_CATEGORY_TITLES = {"build": "CI job build", "version": "DUT version"}
CATEGORY_TICKS = 12
"""At most this many build or version labels along the axis: they are long."""
LEGEND_BELOW_TICKS = {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom"}
"""A legend under a category axis: its slanted labels take a height of their own, so
the legend sits at the figure's foot, not at a fixed distance under the plot."""


Places = Callable[[RunColumns, "Sequence[int] | None"], list[str]]
"""Where runs go on the x axis: a history's runs at the indices given (None: all of them)."""
_JOB_BUILD = operator.attrgetter("job_build")


def _picked(column: Sequence[Any], runs: Sequence[int] | None) -> Sequence[Any]:
    """A column's items at ``runs`` (None: the whole column), gathered in C."""
    return column if runs is None else list(map(column.__getitem__, runs))


def _x_of(kind: str) -> Places:
    """Each run's place on the x axis: its time, or its build or version as a category
    (the version of a run without one is its build, so no run loses its place).

    Mapped over a trace's runs at once, from the history's columns: a graph
    page places every run of thousands of series, and a call per run cost
    more than the (cached) formatting it asked for.
    """
    if kind == "time":
        return lambda columns, runs: list(map(plotly_time, _picked(columns.times, runs)))
    if kind == "build":
        return lambda columns, runs: list(
            map(_escaped, map(_JOB_BUILD, _picked(columns.origins, runs)))
        )
    if kind == "version":
        return lambda columns, runs: list(map(_version_place, _picked(columns.origins, runs)))
    raise ValueError(f"x axis {kind!r}: expected one of {', '.join(X_AXES)}")


def _version_place(origin: RunBuild) -> str:
    """A run's place on a version axis: its version, else its build."""
    return _escaped(origin.dut_version or origin.job_build)


def _x_axis(kind: str, trends: Sequence[TestTrend]) -> dict[str, Any]:
    """The layout of the x axis; categories in the order their first runs ran."""
    if kind == "time":
        return date_axis()
    place = _x_of(kind)
    first: dict[str, datetime] = {}
    for trend in trends:
        columns = trend.history.columns
        for moment, category in zip(columns.times, place(columns, None), strict=True):
            if category not in first or moment < first[category]:
                first[category] = moment
    return {
        "type": "category",
        "categoryorder": "array",
        "categoryarray": sorted(first, key=lambda category: (first[category], category)),
        "title": {"text": _CATEGORY_TITLES[kind]},
        "automargin": True,
        "nticks": CATEGORY_TICKS,
        "tickangle": -30,
    }


TESTBED_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "star", "hexagon")
TESTBED_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
"""Per testbed, so series at similar levels differ by more than a shade of colour."""
FAILED_SYMBOL = "x-thin-open"
FAILED_COLOR = "#404040"

_ALLOWED_HUES = ((0.06, 0.18), (0.47, 0.93))
"""Hue arcs for series: red and green are kept for the anomaly markers."""


@functools.lru_cache(maxsize=1024)
def color(index: int) -> str:
    """Distinct colours for any number of tests.

    Golden-ratio steps spread consecutive hues far apart; each step is then
    mapped onto the allowed arcs, so no series is drawn in anomaly red or
    green.  Every graph page colours its series from the first again: each
    colour is worked out once.
    """
    position = (0.3 + index * 0.618033988749895) % 1.0
    total = sum(high - low for low, high in _ALLOWED_HUES)
    offset = position * total
    for low, high in _ALLOWED_HUES:
        if offset < high - low:
            hue = low + offset
            break
        offset -= high - low
    lightness = 0.40 if index % 2 else 0.48
    red, green, blue = colorsys.hls_to_rgb(hue, lightness, 0.65)
    return f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}"


@functools.lru_cache(maxsize=1 << 16)
def _escaped(text: str | None) -> str:
    """Data text made inert for Plotly's HTML subset and its %{...} templates,
    with control characters made visible.

    Versions, builds and testbeds repeat on every test's graph: each distinct
    text is escaped once.
    """
    return html.escape(visible(text or ""), quote=True).replace("%{", "%&#123;")


@functools.lru_cache(maxsize=1 << 16)
def plotly_time(moment: datetime) -> str:
    """Plotly reads naive date strings best; every time here is UTC.

    A build's time is every test's run time in it: formatted once.
    """
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def _hover_lines(
    unit: DisplayUnit, value: str, stdev: str, version: str, build: str, testbed: str
) -> list[str]:
    """A run's hover lines, each point's texts taken from where a trace keeps them.

    One wording for the runs and for the points marked over them, whose
    data lie in other places of their traces.
    """
    label = _escaped(unit.label)
    return [
        "date: %{x|%Y-%m-%d %H:%M} UTC",
        f"value [{label}]: %{{{value}:.3f}}",
        f"stdev [{label}]: %{{{stdev}:.3f}}",
        f"DUT version: %{{{version}}}",
        f"CI job build: {build}",
        f"testbed: %{{{testbed}}}",
    ]


@functools.lru_cache(maxsize=256)
def _hover_template(unit: DisplayUnit, headline: bool = False, percentiles: bool = False) -> str:
    """One template per sparse trace (anomalies, outliers); each point's texts
    travel in ``customdata`` (see :func:`_point_data`).

    ``percentiles`` adds a latency's HDR percentiles, the last item of the
    point data (after the headline, when there is one).
    """
    lines = ["%{customdata[5]}"] if headline else []
    lines += _hover_lines(
        unit, "customdata[0]", "customdata[1]", "customdata[2]", "%{customdata[3]}", "customdata[4]"
    )
    if percentiles:
        lines.append(f"%{{customdata[{6 if headline else 5}]}}")
    return "<br>".join(lines) + "<extra></extra>"


@functools.lru_cache(maxsize=256)
def _runs_template(
    unit: DisplayUnit, one_job: bool, one_testbed: bool, percentiles: bool, clicks: str = ""
) -> str:
    """The runs' hover, as :func:`_hover_template` shows it, from fewer bytes.

    A graph page's data was mostly these points' hover texts.  So the
    value is the point's own ``y``, and a job or testbed text
    every run shares travels once, in the trace's ``meta``; ``customdata``
    keeps the stdev, the version, the build (or ``JOB/BUILD``), then the
    testbed where it varies and the percentiles where the metric has them.
    """
    build = f"{'%{meta[0]}' + SEPARATOR if one_job else ''}%{{customdata[2]}}"
    testbed = "meta[1]" if one_testbed else "customdata[3]"
    lines = _hover_lines(unit, "y", "customdata[0]", "customdata[1]", build, testbed)
    if percentiles:
        lines.append(f"%{{customdata[{3 if one_testbed else 4}]}}")
    if clicks:
        lines.append(clicks)
    return "<br>".join(lines) + "<extra></extra>"


CLICK_OPENS_BUILD = "click: opens the CI build's page"
CLICK_OPENS_VERSION = "click: opens the DUT version's page"
CLICK_NEWEST_PERCENTILES = "the newest runs: their latency percentiles"


def _click_hint(links: LinkTemplates) -> str:
    """What a click on a run opens (see :func:`_run_link`)."""
    return CLICK_OPENS_BUILD if links.build else CLICK_OPENS_VERSION


@dataclass(frozen=True)
class _ShownTexts:
    """What the runs trace of a series shows of its runs but their numbers: their
    places, then the hover's text columns (see :func:`_runs_template`).

    Series of a graph page ran in the same builds and mostly failed in the
    same ones: each set of shown runs' texts is made once (see
    :meth:`_RunTexts.shown`), and its lists are shared, never changed.
    """

    places: list[str]
    columns: tuple[list[str], ...]
    """The versions, the builds (``JOB/BUILD`` where jobs vary), then the testbeds
    where they vary: :func:`_runs_hover`'s ``customdata`` after the deviation."""
    one_job: bool
    one_testbed: bool
    meta: list[str] | None
    """The job and the testbed every run shares ("" where they vary); None if neither."""
    addresses: list[str | None] | None
    """The address a click on each run opens; None when no run has one."""

    @classmethod
    def of(
        cls,
        places: list[str],
        texts: tuple[list[str], list[str], list[str], list[str], list[str | None]],
    ) -> _ShownTexts:
        """From the runs' places and :meth:`_RunTexts.hover`."""
        versions, jobs, builds, testbeds, links = texts
        one_job, one_testbed = len(set(jobs)) == 1, len(set(testbeds)) == 1
        columns = [versions, builds if one_job else list(map(build_name, jobs, builds))]
        if not one_testbed:
            columns.append(testbeds)
        meta = None
        if one_job or one_testbed:
            meta = [jobs[0] if one_job else "", testbeds[0] if one_testbed else ""]
        addresses = links if any(links) else None
        return cls(places, tuple(columns), one_job, one_testbed, meta, addresses)

    def among(
        self, places: list[str], versions: list[str], builds: list[str], links: list[str | None]
    ) -> _ShownTexts:
        """The texts of some of these runs, given their places, versions, builds and
        addresses, where every run of these ran in one job on one testbed.

        Those runs then share the job and the testbed too: a series that
        failed in builds others passed shows runs of its own, and working out
        again what they share, from two more columns, cost most of its texts.
        """
        assert self.one_job and self.one_testbed
        addresses = links if any(links) else None
        return _ShownTexts(places, (versions, builds), True, True, self.meta, addresses)

    def template(self, unit: DisplayUnit, percentiles: bool, clicks: str) -> str:
        """The runs' hover template for these texts (:func:`_runs_template`); ``clicks``
        is shown only where a run has an address to open."""
        clicks = clicks if self.addresses else ""
        return _runs_template(unit, self.one_job, self.one_testbed, percentiles, clicks)


def _runs_hover(
    texts: _ShownTexts,
    stdevs: list[float],
    percentiles: list[str] | None,
    unit: DisplayUnit,
    clicks: str = "",
) -> dict[str, Any]:
    """The runs trace's ``customdata``, ``meta``, template (see :func:`_runs_template`)
    and the addresses a click opens, if any.

    ``texts`` are the shown runs' texts, ``percentiles`` each run's
    :func:`_percentile_text` if the metric has them.
    """
    columns: list[Sequence[Any]] = [stdevs, *texts.columns]
    if percentiles is not None:
        columns.append(percentiles)
    addresses = texts.addresses
    hover: dict[str, Any] = {
        # a tuple per point: JSON writes it as the list Plotly reads
        "customdata": list(zip(*columns, strict=True)),
        "hovertemplate": texts.template(unit, percentiles is not None, clicks),
    }
    if addresses is not None:
        hover["trending_links"] = addresses
    if texts.meta is not None:
        hover["meta"] = texts.meta
    return hover


def _page_texts(page: PageRuns, texts: _ShownTexts) -> int:
    """The number of ``page``'s entry of these texts."""
    return page.shown(texts, texts.places, texts.columns, texts.meta, texts.addresses)


def _runs_hover_on_page(
    entry: int,
    texts: _ShownTexts,
    stdevs: list[float],
    percentiles: list[str] | None,
    unit: DisplayUnit,
    clicks: str = "",
) -> dict[str, Any]:
    """What :func:`_runs_hover` gives and the runs' places, as the rows of their
    page's table they are (see :mod:`.page_runs`): the series' own deviations and
    percentiles, and the number of the table's ``entry`` of its texts, alike
    ``texts``."""
    runs: dict[str, Any] = {"shown": entry, "stdev": stdevs}
    if percentiles is not None:
        runs["percentiles"] = percentiles
    return {"hovertemplate": texts.template(unit, percentiles is not None, clicks), RUNS: runs}


def _percentile_text(percentiles: tuple[tuple[str, float], ...], unit: DisplayUnit) -> str:
    """``percentiles [us]: p50 12.000, p90 ...`` of a run, or that it has no histogram."""
    if not percentiles:
        return "percentiles: no histogram"
    shown = ", ".join(f"{_escaped(name)} {value * unit.scale:.3f}" for name, value in percentiles)
    return f"percentiles [{_escaped(unit.label)}]: {shown}"


def _point_data(
    run: Run, unit: DisplayUnit, headline: str = "", percentiles: bool = False
) -> list[Any]:
    version, job, build, testbed = _run_texts(run.origin, run.hosts)
    data: list[Any] = [
        (run.average or 0.0) * unit.scale,
        (run.stdev or 0.0) * unit.scale,
        version,
        build_name(job, build),
        testbed,
    ]
    if headline:
        data.append(headline)
    if percentiles:
        data.append(_percentile_text(run.percentiles, unit))
    return data


@functools.lru_cache(maxsize=1 << 16)
def _run_texts(origin: RunBuild, hosts: str) -> tuple[str, str, str, str]:
    """A run's escaped version, job, build and testbed, as its hover shows them.

    They are the build's, not the test's: every series of a graph page
    repeats them, so each build's texts are made once (keyed by the
    :class:`RunBuild` its build's runs share: one field read, not four).
    Job and build are escaped apart: escaping works character by character
    (``%{`` cannot span the separator), so ``build_name`` of the two is the
    escaped ``JOB/BUILD``.
    """
    return (
        _escaped(origin.dut_version),
        _escaped(origin.job),
        _escaped(origin.build),
        _escaped(_testbed_and_hosts(origin.testbed, hosts)),
    )


_ShownKey = tuple[bytes | None, str]
"""Which runs a series shows (the bytes of their positions; None for every run) and
on which x axis: what :meth:`_RunTexts.shown` keeps their texts by."""


class _RunTexts:
    """Each run's place on every x axis (see :func:`_x_of`), its hover texts
    (:func:`_run_texts`) and the address a click on it opens (:func:`_run_link`),
    kept as columns with a row per build, hosts and time.

    A series' runs are looked up to their rows once, and each trace takes
    the columns it shows of those rows at once (the runs trace its shown
    runs', the failed runs trace theirs).  A run's texts looked up as a
    tuple each, then turned into columns, and its place looked up apart,
    took more than the rest of its trace.
    """

    LIMIT = 1 << 16
    """Rows kept at most (as many as the caches of each build's texts keep)."""

    def __init__(self, build_template: str | None, version_template: str | None) -> None:
        self._templates = build_template, version_template
        self._rows: dict[tuple[RunBuild, str, datetime], int] = {}
        self._columns: list[npt.NDArray[np.object_]] = [np.empty(0, dtype=object)] * 8
        self._last: tuple[RunColumns, npt.NDArray[np.intp]] | None = None
        self._shown: tuple[npt.NDArray[np.intp] | None, dict[_ShownKey, _ShownTexts]]
        self._shown = None, {}

    def rows(self, columns: RunColumns) -> npt.NDArray[np.intp]:
        """The row of each run of a history (not to be changed); rows are added for
        runs of builds, hosts or times not seen before.

        The series of a graph page mostly ran in the same builds, on the same
        hosts: a history whose runs ran as the previous one's did
        (:meth:`~.RunColumns.same_runs`) gets its rows again.
        """
        if self._last is not None and columns.same_runs(self._last[0]):
            return self._last[1]
        found = self._looked_up((columns.origins, columns.hosts, columns.times))
        self._last = columns, found
        return found

    def _looked_up(self, runs: tuple[list[Any], ...]) -> npt.NDArray[np.intp]:
        origins, hosts, times = runs
        keys = zip(origins, hosts, times, strict=True)
        try:
            return np.fromiter(map(self._rows.__getitem__, keys), np.intp, len(origins))
        except KeyError:
            pass
        new = [key for key in dict.fromkeys(zip(*runs, strict=True)) if key not in self._rows]
        if len(self._rows) + len(new) > self.LIMIT:
            self._rows.clear()
            new = list(dict.fromkeys(zip(*runs, strict=True)))
        first = len(self._rows)
        self._rows.update(zip(new, itertools.count(first)))
        if len(self._rows) > len(self._columns[0]):  # room for twice as many: few copies
            room = max(2 * len(self._rows), 64)
            self._columns = [np.resize(column, room) for column in self._columns]
        made = [self._row(*key) for key in new]
        for column, added in zip(self._columns, zip(*made, strict=True), strict=True):
            column[first : len(self._rows)] = added
        return self._looked_up(runs)

    def _row(self, origin: RunBuild, hosts: str, time: datetime) -> tuple[str | None, ...]:
        """A run's places on each of :data:`X_AXES` (see :func:`_x_of`), in their order,
        then its hover texts and its address."""
        return (
            plotly_time(time),
            _escaped(origin.job_build),
            _version_place(origin),
            *_run_texts(origin, hosts),
            _run_link(*self._templates, origin),
        )

    SHOWN_LIMIT = 256
    """Sets of shown runs' texts kept at most, for the rows of the last history."""

    def shown(
        self, rows: npt.NDArray[np.intp], shown: npt.NDArray[np.intp] | None, x_axis: str
    ) -> _ShownTexts:
        """The texts of the runs at positions ``shown`` of ``rows`` (None: every run),
        placed on ``x_axis``; ``rows`` as :meth:`rows` gave them.

        Kept for the histories that get the same ``rows`` object (the same
        builds, hosts and times) and show the same runs: a graph page's
        series mostly do, and taking each its texts again cost a fifth of
        its figure.
        """
        kept_for, kept = self._shown
        if kept_for is not rows or len(kept) >= self.SHOWN_LIMIT:
            kept = {}
            self._shown = rows, kept
        # every run is None, not the bytes of no run: a series whose measured runs are
        # all curated out shows none of the runs another series shows all of
        key = (None if shown is None else shown.tobytes(), x_axis)
        found = kept.get(key)
        if found is None:
            found = kept[key] = self._shown_texts(rows, shown, x_axis, kept)
        return found

    def _shown_texts(
        self,
        rows: npt.NDArray[np.intp],
        shown: npt.NDArray[np.intp] | None,
        x_axis: str,
        kept: dict[_ShownKey, _ShownTexts],
    ) -> _ShownTexts:
        """:meth:`shown`'s texts made; where every run of ``rows`` shares its job and
        testbed, some of them are taken of their versions, builds and addresses
        alone (see :meth:`_ShownTexts.among`)."""
        if shown is None or not len(shown):
            picked = rows if shown is None else rows[shown]
            return _ShownTexts.of(self.places(x_axis, picked), self.hover(picked))
        every = kept.get((None, x_axis))
        if every is None:
            every = kept[None, x_axis] = self._shown_texts(rows, None, x_axis, kept)
        picked = rows[shown]
        if not (every.one_job and every.one_testbed):
            return _ShownTexts.of(self.places(x_axis, picked), self.hover(picked))
        versions, builds = (self._columns[at][picked].tolist() for at in (3, 5))
        links = [] if every.addresses is None else self._columns[7][picked].tolist()
        return every.among(self.places(x_axis, picked), versions, builds, links)

    def page_texts(
        self,
        rows: npt.NDArray[np.intp],
        shown: npt.NDArray[np.intp] | None,
        x_axis: str,
    ) -> tuple[_ShownTexts, bool | None]:
        """The texts a runs trace drawn for a page takes its hover template of, and how
        the page's entry of its runs is made: of those texts (None), or of the runs'
        positions among every run of ``rows``, whose texts they are (whether the runs
        have addresses).

        Where every run of ``rows`` ran in one job on one testbed, the entry
        of some of them is made of their positions among all, whose entry the
        page has: their texts are not taken (a graph page's series that failed
        in builds others passed are half its series).
        """
        every = self.shown(rows, None, x_axis)
        if shown is None:
            return every, None
        if len(shown) and every.one_job and every.one_testbed:
            links = every.addresses is not None and any(self._columns[7][rows[shown]].tolist())
            if links or every.addresses is None:  # alike: see _ShownTexts.among
                return every, links
        return self.shown(rows, shown, x_axis), None

    def on_page(
        self,
        page: PageRuns,
        rows: npt.NDArray[np.intp],
        shown: npt.NDArray[np.intp] | None,
        x_axis: str,
    ) -> int:
        """The number of ``page``'s entry of the runs at positions ``shown`` of ``rows``
        (None: every run), made the first time (see :meth:`page_texts`)."""
        texts, among_links = self.page_texts(rows, shown, x_axis)
        entry = _page_texts(page, texts)
        if among_links is None:
            return entry
        assert shown is not None
        key = (id(texts), x_axis, shown.tobytes())
        return page.shown_among(key, texts, shown, texts.meta, among_links)

    def places(self, x_axis: str, rows: npt.NDArray[np.intp]) -> list[str]:
        """The runs' places on the x axis ``x_axis`` (one of :data:`X_AXES`)."""
        return self._columns[X_AXES.index(x_axis)][rows].tolist()  # type: ignore[no-any-return]

    def builds(self, rows: npt.NDArray[np.intp]) -> list[str]:
        """The runs' escaped ``JOB/BUILD``."""
        return self.places("build", rows)

    def hover(
        self, rows: npt.NDArray[np.intp]
    ) -> tuple[list[str], list[str], list[str], list[str], list[str | None]]:
        """The runs' versions, jobs, builds, testbeds and addresses, each a list."""
        return tuple(column[rows].tolist() for column in self._columns[3:])  # type: ignore[return-value]

    def links(self, rows: npt.NDArray[np.intp]) -> list[str | None] | None:
        """The runs' addresses; None when no run has one."""
        addresses: list[str | None] = self._columns[7][rows].tolist()
        return addresses if any(addresses) else None


@functools.lru_cache(maxsize=64)
def _run_texts_of(build_template: str | None, version_template: str | None) -> _RunTexts:
    """The :class:`_RunTexts` of a site's link templates (a site has one or two)."""
    return _RunTexts(build_template, version_template)


def _testbed_and_hosts(testbed: str | None, hosts: str) -> str:
    """``2n-icx (hosts 10.30.51.49, 10.30.51.50)``: the physical machines behind the name."""
    if not hosts:
        return testbed or ""
    shown = ", ".join(hosts.split())
    return f"{testbed} (hosts {shown})" if testbed else f"hosts {shown}"


def _headline(trend: TestTrend, index: int, span: str, clicks: str) -> str:
    """What an anomaly marker says: the verdict, its confidence and standing, the
    range it lies in (``span``) and what a click opens (``clicks``, "" for nothing)."""
    verdict = trend.verdicts[index]
    text = verdict.verdict
    if verdict.confidence is not None:
        text += f", confidence {verdict.confidence:.3f}"
    if verdict.provisional:
        text += " (provisional)"
    known = trend.acknowledged.get(index)
    if known is not None:
        text += f"<br>acknowledged: {_escaped(known.reason)}"
    if span:
        text += f"<br>range: {_escaped(span)}"
    change = trend.environment.get(index)
    if change:
        text += f"<br>{_escaped(labelled(change))}"
    if clicks:
        text += f"<br>click: {clicks}"
    return text


def _anomaly_marks(
    trend: TestTrend, anomalies: list[int], links: LinkTemplates
) -> tuple[list[str], list[str | None]]:
    """Each anomaly's headline (see :func:`_headline`) and the address its click opens."""
    runs = trend.history.runs
    headlines: list[str] = []
    addresses: list[str | None] = []
    for index in anomalies:
        span, compare = range_cell(change_range(runs, trend.result.groups, index), links)
        headlines.append(
            _headline(trend, index, span, "opens the commits in this range" if compare else "")
        )
        addresses.append(compare)
    return headlines, addresses


@functools.lru_cache(maxsize=1 << 16)
def _run_link(
    build_template: str | None,
    version_template: str | None,
    where: RunBuild,
) -> str | None:
    """A run's address from its build's fields: its build's page, else its version's.

    Every test of a build has the same address, and filling a template
    quotes each value: made once per build, not once per run, which took
    more than half of a linked graph page's figures.  Keyed by the template
    texts, not the :class:`LinkTemplates`, whose hash Python computes anew
    on every call.
    """
    links = LinkTemplates(build_template, version_template)
    fields = where.job, where.build, where.dut_version, where.testbed
    return links.build_url(*fields) or links.version_url(*fields)


def series_label(history: TestHistory, with_testbed: bool = True) -> str:
    """The display name, and the testbed when several share a graph and the name lacks it."""
    name = history.display_name
    if not with_testbed or not history.testbed or name.startswith(f"{history.testbed} "):
        return name
    return f"{name} ({history.testbed})"


@dataclass(frozen=True)
class _Style:
    """How one series is drawn: its colour, and its testbed's symbol and dash."""

    color: str
    symbol: str = TESTBED_SYMBOLS[0]
    dash: str = TESTBED_DASHES[0]
    with_testbed: bool = False


def _failed_trace(
    trend: TestTrend,
    failed: FailedRuns,
    levels: TrendLevels,
    name: str,
    unit: DisplayUnit,
    texts: _RunTexts,
    rows: npt.NDArray[np.intp],
    x_axis: str,
    links: LinkTemplates,
) -> dict[str, Any]:
    """Failed runs (not PASS, as in the failed-tests table) as crosses on the trend they
    interrupted (at zero when the test has no trend at all); a click opens the build.

    ``rows`` are the history's runs' rows of ``texts``."""
    failed_rows = rows[failed.runs]
    addresses = texts.links(failed_rows)
    hint = f"<br>{_click_hint(links)}" if addresses else ""
    trace = {
        "type": "scatter",
        "mode": "markers",
        "name": f"{name} failed",
        "legendgroup": trend.history.key,
        "x": texts.places(x_axis, failed_rows),
        "y": [level * unit.scale for level in levels.before(failed.runs)],
        "customdata": [
            [built, _escaped(message)]
            for built, message in zip(texts.builds(failed_rows), failed.messages, strict=True)
        ],
        "hovertemplate": f"failed: %{{customdata[0]}}<br>%{{customdata[1]}}{hint}<extra></extra>",
        "marker": {
            "symbol": FAILED_SYMBOL,
            "size": 10,
            "color": FAILED_COLOR,
            "line": {"width": 2, "color": FAILED_COLOR},
        },
    }
    if addresses:
        trace["trending_links"] = addresses
    return trace


def _outlier_trace(
    trend: TestTrend, name: str, unit: DisplayUnit, place: Places
) -> dict[str, Any] | None:
    """Outlier runs (see :mod:`~sphinxcontrib_trending.analysis.outliers`) as grey
    diamonds on their own values; the trend line goes on through their group."""
    if not any(group.outliers for group in trend.result.groups):
        return None
    outliers = trend.result.outliers
    runs = [trend.history.runs[index] for index in outliers]
    headline = "outlier: left its group and came back, not a change"
    return {
        "type": "scatter",
        "mode": "markers",
        "name": f"{name} outliers",
        "legendgroup": trend.history.key,
        "x": place(trend.history.columns, outliers),
        "y": [(run.average or 0.0) * unit.scale for run in runs],
        _RUNS: outliers,
        "customdata": [_point_data(run, unit, headline) for run in runs],
        "hovertemplate": _hover_template(unit, headline=True),
        "marker": {
            "symbol": OUTLIER_SYMBOL,
            "size": 12,
            "color": OUTLIER_COLOR,
            "line": {"width": 2, "color": OUTLIER_COLOR},
        },
    }


def _excluded_trace(
    trend: TestTrend, name: str, unit: DisplayUnit, place: Places
) -> dict[str, Any]:
    """Curated runs (see :mod:`~sphinxcontrib_trending.analysis.excluded`), greyed on
    their own values with the reason: shown, but part of no group."""
    columns = trend.history.columns
    shown = [index for index in sorted(trend.excluded) if columns.measured[index]]
    runs = [trend.history.runs[index] for index in shown]
    return {
        "type": "scatter",
        "mode": "markers",
        "name": f"{name} excluded",
        "legendgroup": trend.history.key,
        "showlegend": False,
        "x": place(columns, shown),
        "y": [(run.average or 0.0) * unit.scale for run in runs],
        "customdata": [
            _point_data(run, unit, f"excluded: {_escaped(trend.excluded[index].reason)}")
            for index, run in zip(shown, runs, strict=True)
        ],
        "hovertemplate": _hover_template(unit, headline=True),
        "marker": {
            "symbol": EXCLUDED_SYMBOL,
            "size": 10,
            "color": EXCLUDED_COLOR,
            "line": {"width": 2, "color": EXCLUDED_COLOR},
        },
    }


TRIAL_OPACITY = 0.35


def _trials_trace(
    trials: Sequence[Sequence[float]],
    name: str,
    key: str,
    color: str,
    unit: DisplayUnit,
    times: list[str],
) -> dict[str, Any] | None:
    """Every trial of every measured run, as a faint cloud behind the run averages.

    Drawn first, so it sits behind the averages; it does not answer hovers
    (the average's hover says it all) and toggles with its series.
    ``trials`` are the measured runs' trials and ``times`` their places, as
    the averages' trace has them.
    """
    points = [
        (time, value * unit.scale)
        for values, time in zip(trials, times, strict=True)
        if len(values) > 1
        for value in values
        if math.isfinite(value)
    ]
    if not points:
        return None
    return {
        "type": "scatter",
        "mode": "markers",
        "name": f"{name} trials",
        "legendgroup": key,
        "showlegend": False,
        "x": [time for time, _ in points],
        "y": [value for _, value in points],
        "hoverinfo": "skip",
        "opacity": TRIAL_OPACITY,
        "marker": {"color": color, "size": 3, "symbol": "circle"},
    }


_RUNS = "trending_runs"
"""Where :func:`_traces` notes the run behind each point of a trace whose points
are runs, for :func:`trend_figure` to take out (Plotly has no use for it)."""


def _shown_runs(columns: RunColumns, excluded: Collection[int]) -> npt.NDArray[np.bool_]:
    """Which runs are drawn as the series' points: the measured ones but those curated
    out (drawn apart, greyed: the grouping never saw them)."""
    if not excluded:
        return columns.measured
    shown = columns.measured.copy()
    shown[list(excluded)] = False
    return shown


def _anomaly_trace(
    trend: TestTrend,
    anomalies: list[int],
    levels: TrendLevels,
    name: str,
    unit: DisplayUnit,
    place: Places,
    links: LinkTemplates,
    percentiles: bool,
) -> dict[str, Any]:
    """Rings on the trend where each anomaly starts, in its verdict's colour (grey when
    acknowledged), larger when firm; a click opens the commits of its range."""
    headlines, addresses = _anomaly_marks(trend, anomalies, links)
    runs = [trend.history.runs[index] for index in anomalies]
    verdicts, acknowledged = trend.verdicts, trend.acknowledged
    return {
        "type": "scatter",
        "mode": "markers",
        "name": f"{name} anomalies",
        "legendgroup": trend.history.key,
        "showlegend": False,
        "x": place(trend.history.columns, anomalies),
        "y": [levels.level(index) * unit.scale for index in anomalies],
        _RUNS: anomalies,
        "customdata": [
            _point_data(run, unit, headline, percentiles)
            for run, headline in zip(runs, headlines, strict=True)
        ],
        "hovertemplate": _hover_template(unit, headline=True, percentiles=percentiles),
        "marker": {
            "symbol": "circle-open",
            "size": [15 if verdicts[index].firm else 11 for index in anomalies],
            "line": {"width": 2},
            "color": [
                ACKNOWLEDGED_COLOR
                if index in acknowledged
                else MARKER_COLORS[verdicts[index].verdict]
                for index in anomalies
            ],
        },
        **({"trending_links": addresses} if any(addresses) else {}),
    }


def _traces(
    trend: TestTrend,
    style: _Style,
    x_axis: str,
    failed: FailedRuns,
    trials: bool = False,
    links: LinkTemplates | None = None,
    entry: int | None = None,
) -> list[dict[str, Any]]:
    """The series' traces, read from its history's columns; the runs' texts as the rows
    of its page's table that ``entry`` names, if given (see :func:`figure_refs`).

    A graph page draws every run of thousands of series: the averages,
    deviations and the trend's steps are array operations, and each run's
    texts, place and address are taken of its rows of :class:`_RunTexts`
    (a look-up per run at most).  Runs are made only for the few points marked
    over them (anomalies, outliers, excluded runs).
    """
    links = links or LinkTemplates()
    history = trend.history
    columns = history.columns
    unit = display_unit(history.unit)
    scale = unit.scale
    series_color = style.color
    name = _escaped(series_label(history, style.with_testbed))
    levels = TrendLevels(trend.result)
    verdicts = trend.verdicts
    percentiles = columns.any_percentiles()
    drawn = _shown_runs(columns, trend.excluded)
    shown = drawn.nonzero()[0]
    measured: list[int] = shown.tolist()
    every = len(measured) == len(columns)  # then none failed either
    picked = None if every else measured
    texts = _run_texts_of(links.build, links.version)
    rows = texts.rows(columns)
    shown_rows = rows if every else rows[shown]
    times: list[str] | None = None  # on a page, only the places a trace needs are taken
    if entry is None:
        shown_texts = texts.shown(rows, None if every else shown, x_axis)
        times = shown_texts.places
        hover_of = _runs_hover
    else:
        shown_texts = texts.page_texts(rows, None if every else shown, x_axis)[0]
        hover_of = functools.partial(_runs_hover_on_page, entry)
    averages = columns.averages if every else columns.averages[shown]
    stdevs = columns.stdevs if every else columns.stdevs[shown]
    hover = hover_of(
        shown_texts,
        (stdevs * scale).tolist(),
        [_percentile_text(shown, unit) for shown in _picked(columns.percentiles, picked)]
        if percentiles
        else None,
        unit,
        _click_hint(links),
    )
    runs_trace = {
        "type": "scatter",
        "mode": "markers",
        "name": name,
        "legendgroup": history.key,
        **({"x": times} if times is not None else {}),
        "y": (averages * scale).tolist(),
        **hover,
        "marker": {"color": series_color, "size": 6, "symbol": style.symbol},
        _RUNS: measured,
    }
    # a step line ("hv") needs only the runs where it changes level, and the last
    steps, steps_levels = levels.steps(measured)
    traces: list[dict[str, Any]] = [
        runs_trace,
        {
            "type": "scatter",
            "mode": "lines",
            "name": f"{name} trend",
            "legendgroup": history.key,
            "showlegend": False,
            "x": [times[at] for at in steps]
            if times is not None
            else texts.places(x_axis, shown_rows[steps]),
            "y": [level * scale for level in steps_levels],
            "hovertemplate": f"trend [{_escaped(unit.label)}]: %{{y:.3f}}<extra></extra>",
            "line": {"color": series_color, "width": 1.5, "shape": "hv", "dash": style.dash},
        },
    ]
    if trials:
        values = _picked(columns.trials, picked)
        places = times if times is not None else texts.places(x_axis, shown_rows)
        cloud = _trials_trace(values, name, history.key, series_color, unit, places)
        if cloud is not None:
            traces.insert(0, cloud)
    if failed.runs:
        traces.append(_failed_trace(trend, failed, levels, name, unit, texts, rows, x_axis, links))
    place = _x_of(x_axis)
    # a verdict is on a group's first run (see TestTrend.verdicts): a few groups, not every run
    starts = [group.start for group in trend.result.groups]
    anomalies = [index for index in starts if verdicts[index] is not None and drawn[index]]
    if anomalies:
        traces.append(
            _anomaly_trace(trend, anomalies, levels, name, unit, place, links, percentiles)
        )
    outliers = _outlier_trace(trend, name, unit, place)
    if outliers is not None:
        traces.append(outliers)
    if trend.excluded:
        traces.append(_excluded_trace(trend, name, unit, place))
    return traces


def _styles(trends: Sequence[TestTrend]) -> list[_Style]:
    """A colour per series; with several testbeds also a symbol and dash per testbed."""
    testbeds = sorted({trend.history.testbed or "" for trend in trends})
    if len(testbeds) < 2:
        return [_Style(color(index)) for index in range(len(trends))]
    position = {testbed: number for number, testbed in enumerate(testbeds)}
    styles = []
    for index, trend in enumerate(trends):
        number = position[trend.history.testbed or ""]
        styles.append(
            _Style(
                color(index),
                TESTBED_SYMBOLS[number % len(TESTBED_SYMBOLS)],
                TESTBED_DASHES[number % len(TESTBED_DASHES)],
                with_testbed=True,
            )
        )
    return styles


@dataclass(frozen=True)
class FigureRefs:
    """What a figure drawn for a page names of the page's table (see :mod:`.page_runs`).

    The table is the page's, so its entries are made in the page's order,
    in one process; the figures that name them can then be drawn anywhere
    from these numbers alone (see :mod:`~.sphinxext.figure_workers`).
    """

    entries: tuple[int, ...]
    """Per series, the entry of its runs' texts."""
    layout: int | None
    """The figure's shared layout's number; None: the figure has a layout of its own."""


def figure_refs(
    trends: Sequence[TestTrend],
    page: PageRuns,
    title: str = "",
    normalised: str = "",
    x_axis: str = "time",
    links: LinkTemplates | None = None,
    shared_layout: bool = False,
) -> FigureRefs:
    """The entries of ``page``'s table that :func:`trend_figure` of these arguments names,
    made where the page has none alike yet."""
    links = links or LinkTemplates()
    texts = _run_texts_of(links.build, links.version)
    entries = []
    for trend in trends:
        columns = trend.history.columns
        shown = _shown_runs(columns, trend.excluded).nonzero()[0]
        every = len(shown) == len(columns)
        entries.append(texts.on_page(page, texts.rows(columns), None if every else shown, x_axis))
    layout = None
    if shared_layout and x_axis == "time":
        layout = page.layout(_time_layout(title, _y_label(trends, normalised)))
    return FigureRefs(tuple(entries), layout)


def _y_label(trends: Sequence[TestTrend], normalised: str) -> str:
    first = trends[0].history if trends else None
    y_label = axis_label(first.metric, first.unit) if first else ""
    return f"{y_label}, {normalised}" if normalised else y_label


def trend_figure(
    trends: Sequence[TestTrend],
    title: str = "",
    normalised: str = "",
    trials: bool = False,
    x_axis: str = "time",
    links: LinkTemplates | None = None,
    percentile_runs: int = PERCENTILE_RUNS,
    failures: Sequence[FailedRuns] | None = None,
    shared_layout: bool = False,
    page_runs: PageRuns | FigureRefs | None = None,
) -> dict[str, Any]:
    """A complete Plotly figure (data, layout, config) for the given tests.

    ``normalised`` (``normalised to 2 GHz``) is added to the y axis label
    when the values were scaled to a reference CPU frequency; ``trials``
    draws each run's individual trials behind its average; ``x_axis`` is
    one of :data:`X_AXES`; ``links`` make runs and anomalies open their
    pages on a click.  A latency's newest ``percentile_runs`` runs of each
    series open their percentile graph on a click instead (see
    :mod:`~sphinxcontrib_trending.render.latency_curves`).  ``failures`` are the
    tests' :func:`~.failed_runs` when the caller found them already (a page of a
    graph per test finds them for all its tests at once).  With ``shared_layout``
    the layout and config of a figure on the time axis are objects every such figure
    with the same title and axis label shares, not to be changed: for a caller that
    only encodes the figure (a page of a graph per test draws thousands alike).
    With ``page_runs`` the runs' texts and a shared layout are rows and layouts of that
    page's table, named by number (see :mod:`.page_runs`): the figure is then only for
    the page's script, or :func:`~.page_runs.expand_figure`, to put back together.  Given
    as :class:`FigureRefs` (of :func:`figure_refs` with these arguments), they are the
    numbers the table has already, and no table is needed here.
    """
    _x_of(x_axis)  # refuses an unknown axis before anything is drawn
    if failures is None:
        failures = failed_runs([trend.history.columns for trend in trends])
    refs = page_runs
    if isinstance(refs, PageRuns):
        refs = figure_refs(trends, refs, title, normalised, x_axis, links, shared_layout)
    data: list[dict[str, Any]] = []
    plotted: list[tuple[int, TestTrend, list[int]]] = []
    for number, (trend, style, failed) in enumerate(
        zip(trends, _styles(trends), failures, strict=True)
    ):
        entry = None if refs is None else refs.entries[number]
        for trace in _traces(trend, style, x_axis, failed, trials, links, entry):
            runs = trace.pop(_RUNS, None)
            if runs is not None:
                plotted.append((len(data), trend, runs))
            data.append(trace)
    y_label = _y_label(trends, normalised)
    if shared_layout and x_axis == "time":
        layout, config = _time_layout(title, y_label), _CONFIG
    else:
        layout, config = _layout(title, y_label, x_axis, trends), dict(_CONFIG)
    figure: dict[str, Any] = {"data": data, "layout": layout, "config": config}
    if refs is not None and refs.layout is not None:  # shared: once in the page's table
        figure["layout"] = refs.layout
    views = percentile_views(plotted, _percentile_title, percentile_runs)
    if views is not None:
        figure["percentiles"] = views
        _hint_percentiles(data)
    return figure


_CONFIG = {"displaylogo": False, "responsive": True}


def _layout(title: str, y_label: str, x_axis: str, trends: Sequence[TestTrend]) -> dict[str, Any]:
    """A figure's layout: its title, the axes and where the legend goes."""
    return {
        "title": {"text": _escaped(title)},
        "hovermode": "closest",
        "showlegend": True,
        "legend": (
            dict(LEGEND_BELOW_TICKS) if x_axis != "time" else {"orientation": "h", "y": -0.25}
        ),
        "margin": {"l": 60, "r": 20, "t": 60 if title else 30, "b": 40},
        "xaxis": _x_axis(x_axis, trends),
        "yaxis": {"title": {"text": _escaped(y_label)}},
    }


@functools.lru_cache(maxsize=64)
def _time_layout(title: str, y_label: str) -> dict[str, Any]:
    """The layout of figures on the time axis with this title and y axis label, made
    once and shared (see ``shared_layout`` of :func:`trend_figure`)."""
    return _layout(title, y_label, "time", ())


def _hint_percentiles(data: list[dict[str, Any]]) -> None:
    """Say in each run's hover that the newest runs open their percentiles, not a page."""
    for trace in data:
        template = trace.get("hovertemplate", "")
        for hint in (CLICK_OPENS_BUILD, CLICK_OPENS_VERSION):
            template = template.replace(hint, f"{hint} ({CLICK_NEWEST_PERCENTILES})")
        trace["hovertemplate"] = template


def _percentile_title(trend: TestTrend, run: Run) -> str:
    """What a run's percentile graph is titled: the series, then the build, version and time."""
    version = f", {run.dut_version}" if run.dut_version else ""
    when = f"{run.job_build}{version}, {plotly_time(run.time)} UTC"
    return f"{_escaped(series_label(trend.history))}<br>{_escaped(when)}"
