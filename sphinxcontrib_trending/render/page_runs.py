"""The run texts a page's figures share, sent once per page instead of once per figure.

A graph page of two thousand series draws each series' runs, and every
figure repeated the texts of the page's builds: each run's time (its place
on the x axis), DUT version and build number in the hover data, the job
and testbed in ``meta``, the address a click opens.  At CSIT's size they
were most of the runs trace and half of each figure's bytes.  So a
figure drawn for a page (``page_runs`` of :func:`~.figure.trend_figure`)
names rows of one table of the page (:class:`PageRuns`) instead, and the
page's shared layout by its number; the page's script (``trending.js``)
puts them back before Plotly draws, and :func:`expand_figure` does the
same for the builders that draw images: either way the figure is the one
:func:`~.figure.trend_figure` makes without a table.

The table (:meth:`PageRuns.table`)::

    {"rows": [[place, text, ..., address?], ...],
     "shown": [{"rows": [first, count, first, count, ...], "meta": [...]?, "links": 1?}],
     "layouts": [layout, ...]}

A row is one run's place and hover texts, in the order of the trace's
``customdata`` after the deviation, then its address where the trace has
addresses; ``shown`` entries are the runs of traces, as spans of rows.  A
runs trace drawn for a page carries ``trending_texts``: ``{"shown": n,
"stdev": [...], "percentiles": [...]?}``; its ``x``, ``customdata``,
``meta`` and ``trending_links`` are made of the entry ``n`` names.
"""

from __future__ import annotations

import copy
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

RUNS = "trending_texts"
"""The key of a runs trace that names its texts' rows of the page's table."""


class PageRuns:
    """The runs' texts and the shared layouts of one page's figures, each kept once.

    Traces of runs name their texts by :meth:`shown`, which looks each
    set of texts up once: the figure code hands the same objects to every
    series that ran in the same builds (a page's series mostly do).
    """

    def __init__(self) -> None:
        self._rows: dict[tuple[str | None, ...], int] = {}
        self._shown: dict[Hashable, tuple[object, int]] = {}
        self._numbers: dict[Hashable, npt.NDArray[np.intp]] = {}
        self._entries: list[dict[str, Any]] = []
        self._layouts: dict[int, tuple[object, int]] = {}
        self._layout_list: list[dict[str, Any]] = []

    def shown(
        self,
        texts: object,
        places: Sequence[str],
        columns: Sequence[Sequence[str]],
        meta: list[str] | None,
        addresses: Sequence[str | None] | None,
    ) -> int:
        """The number of the entry of these runs' texts, made the first time ``texts``
        (the object they are taken of, not to be changed) is seen.

        ``columns`` are the hover's text columns, ``meta`` the trace's, and
        ``addresses`` what a click on each run opens (None: no run has one).
        """
        found = self._shown.get(id(texts))
        if found is not None:
            return found[1]
        parts: list[Sequence[str | None]] = [places, *columns]
        if addresses is not None:
            parts.append(addresses)
        rows = self._rows
        numbers = np.fromiter(
            (rows.setdefault(row, len(rows)) for row in zip(*parts, strict=True)), np.intp
        )
        return self._entry(id(texts), texts, numbers, meta, addresses is not None)

    def shown_among(
        self,
        key: Hashable,
        every: object,
        positions: npt.NDArray[np.intp],
        meta: list[str] | None,
        links: bool,
    ) -> int:
        """The number of the entry of the runs at ``positions`` of those whose texts
        are ``every`` (of which :meth:`shown` was told), alike them in their columns,
        ``meta`` and whether they have ``links``: their rows are those runs' rows.
        Made the first time ``key`` names them."""
        found = self._shown.get(key)
        if found is not None:
            return found[1]
        return self._entry(key, None, self._numbers[id(every)][positions], meta, links)

    def _entry(
        self,
        key: Hashable,
        texts: object,
        numbers: npt.NDArray[np.intp],
        meta: list[str] | None,
        links: bool,
    ) -> int:
        entry: dict[str, Any] = {"rows": _spans(numbers)}
        if meta is not None:
            entry["meta"] = meta
        if links:
            entry["links"] = 1
        number = len(self._entries)
        self._entries.append(entry)
        self._shown[key] = (texts, number)  # kept, so an id in a key names no other object
        self._numbers[key] = numbers
        return number

    def layout(self, layout: dict[str, Any]) -> int:
        """The number of ``layout`` (an object many figures share, not to be changed)."""
        found = self._layouts.get(id(layout))
        if found is not None:
            return found[1]
        number = len(self._layout_list)
        self._layout_list.append(layout)
        self._layouts[id(layout)] = (layout, number)
        return number

    def __bool__(self) -> bool:
        return bool(self._entries or self._layout_list)

    def table(self) -> dict[str, Any]:
        """The page's table, JSON-ready (see the module's description)."""
        return {"rows": list(self._rows), "shown": self._entries, "layouts": self._layout_list}


def _spans(numbers: npt.NDArray[np.intp]) -> list[int]:
    """Row numbers as ``first, count`` pairs of consecutive runs of them."""
    if not len(numbers):
        return []
    ends = (np.flatnonzero(np.diff(numbers) != 1) + 1).tolist()  # few: a span per gap
    firsts = [0, *ends]
    ends.append(len(numbers))
    rows = numbers[firsts].tolist()
    return [item for at, first in enumerate(firsts) for item in (rows[at], ends[at] - first)]


def _rows_of(spans: list[int]) -> list[int]:
    return [
        row
        for first, count in zip(spans[::2], spans[1::2], strict=True)
        for row in range(first, first + count)
    ]


def expand_figure(figure: dict[str, Any], table: dict[str, Any] | None) -> dict[str, Any]:
    """``figure`` (as JSON gave it, changed in place) with what it names of ``table`` put
    back: the figure :func:`~.figure.trend_figure` makes without a table.

    trending.js does the same in the browser (``expandFigure``); a figure
    that names nothing is returned as it is.
    """
    if table is None:
        return figure
    layout = figure.get("layout")
    if isinstance(layout, int):
        figure["layout"] = copy.deepcopy(table["layouts"][layout])
    for trace in figure["data"]:
        runs = trace.pop(RUNS, None)
        if runs is not None:
            _expand_runs(trace, runs, table)
    return figure


def _expand_runs(trace: dict[str, Any], runs: dict[str, Any], table: dict[str, Any]) -> None:
    shown = table["shown"][runs["shown"]]
    rows = [table["rows"][number] for number in _rows_of(shown["rows"])]
    links = bool(shown.get("links"))
    texts = [row[1:-1] if links else row[1:] for row in rows]
    trace["x"] = [row[0] for row in rows]
    percentiles = runs.get("percentiles")
    if percentiles is None:
        pairs = zip(runs["stdev"], texts, strict=True)
        trace["customdata"] = [[stdev, *text] for stdev, text in pairs]
    else:
        trace["customdata"] = [
            [stdev, *text, percentile]
            for stdev, text, percentile in zip(runs["stdev"], texts, percentiles, strict=True)
        ]
    if links:
        trace["trending_links"] = [row[-1] for row in rows]
    if "meta" in shown:
        trace["meta"] = list(shown["meta"])
