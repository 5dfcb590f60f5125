"""A page of a graph per test, its figures drawn on the build's workers.

At CSIT's size a new build's graph pages drew twenty thousand figures in
the main process, with the grouping's workers idle: a quarter of the
build.  The page's table of run texts (:mod:`~.render.page_runs`) is the
page's, so its entries are made here, in the page's order
(:func:`~.figure.figure_refs`); the figures, which only name them, are
drawn by workers forked once per build, holding every trend analysed by
then (:class:`~.standing_workers.StandingWorkers`).  In an interactive HTML
build the workers write each figure's data file themselves (the graph ids
are given out here first, in order); for other builders the figures come
back, in order, to be kept beside the doctrees.  They are the bytes this
process would draw: a chunk whose worker failed is drawn here, and so is
every figure of a build whose pages group on no workers (``-j N``,
``trending_workers = 1``) or of a page of few tests.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from sphinxcontrib_trending.analysis.summary import TestTrend
from sphinxcontrib_trending.analysis.test_run import failed_runs
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.engine.ready_workers import can_fork
from sphinxcontrib_trending.engine.standing_workers import PendingBytes, StandingWorkers
from sphinxcontrib_trending.render.figure import FigureRefs, figure_refs, trend_figure
from sphinxcontrib_trending.render.page_runs import PageRuns
from sphinxcontrib_trending.render.script_data import script_bytes
from sphinxcontrib_trending.sphinxext import background_writes
from sphinxcontrib_trending.sphinxext.figure_files import DataFiles
from sphinxcontrib_trending.sphinxext.process_memo import analysed_trends, page_workers

MIN_FIGURES = 200
"""Fewer figures on a page are drawn here: not worth the round trips, nor a fork."""
CHUNK = 50
"""Figures per task: small enough that both workers stay busy to a page's end."""


@dataclass(frozen=True)
class Drawing:
    """How each figure of a per-test graph is drawn, but its series (see :func:`trend_figure`)."""

    trials: bool
    x_axis: str
    links: LinkTemplates
    percentile_runs: int


@dataclass(frozen=True)
class _Chunk:
    """A task: the figures of the trends at ``positions`` of what the workers hold, written
    as the data files of graphs ``graph_ids`` where ``files`` is given, else sent back."""

    positions: list[int]
    refs: list[FigureRefs]
    normalised: list[str]
    drawing: Drawing
    graph_ids: list[str]
    files: DataFiles | None


_workers: StandingWorkers[TestTrend] | None = None
_broken = False
"""A worker died this build: the rest of its figures are drawn here."""


def per_test_figures(
    trends: Sequence[TestTrend],
    normalised: Sequence[str],
    page: PageRuns,
    drawing: Drawing,
    graph_ids: Sequence[str],
    files: DataFiles | None,
) -> Iterator[bytes | None]:
    """Each trend's figure alone, naming ``page``'s table, in order: as script bytes, or
    None where a worker wrote it as the data file of its graph in ``graph_ids`` (only
    where ``files`` is given: an interactive HTML build's).

    ``normalised`` is each figure's y-axis note (see :func:`trend_figure`).
    The page's entries are all made before the first figure is given.
    """
    workers = _workers_for(trends)
    refs: list[FigureRefs] = []
    pending: list[tuple[slice, PendingBytes | None]] = []
    for start in range(0, len(trends), CHUNK):
        span = slice(start, start + CHUNK)
        refs += [
            figure_refs([trend], page, "", note, drawing.x_axis, drawing.links, shared_layout=True)
            for trend, note in zip(trends[span], normalised[span], strict=True)
        ]
        handed = None
        if workers is not None and not _broken:  # drawn while the next chunk's entries are made
            positions = workers.positions(trends[span])
            assert positions is not None  # _workers_for found every trend there
            ids = list(graph_ids[span])
            chunk = _Chunk(positions, refs[span], list(normalised[span]), drawing, ids, files)
            handed = _handed(workers, chunk)
        pending.append((span, handed))
    for span, handed in pending:
        figures = _from_worker(handed)
        if figures is None:
            yield from _drawn(trends[span], refs[span], normalised[span], drawing)
        elif files is not None:  # written as their data files: nothing came back
            yield from [None] * len(trends[span])
        else:
            yield from figures


def _handed(workers: StandingWorkers[TestTrend], chunk: _Chunk) -> PendingBytes | None:
    """The chunk handed to the workers; None if they died meanwhile."""
    try:
        return workers.submit_bytes(_draw_held, chunk)
    except BrokenProcessPool:
        _give_up()
        return None


def _from_worker(handed: PendingBytes | None) -> list[bytes] | None:
    """What a worker sent back of its chunk; None if no worker drew it (it is drawn
    here, and an error of a figure's own is then raised here)."""
    if handed is None:
        return None
    try:
        return handed.result()
    except BrokenProcessPool:
        _give_up()
        return None
    except Exception:
        return None


def _workers_for(trends: Sequence[TestTrend]) -> StandingWorkers[TestTrend] | None:
    """The workers that hold every one of ``trends``, forked anew if those do not; None
    where this process draws them (also when they cannot be forked: the rest of the
    build then draws here)."""
    global _workers
    count = page_workers()
    if (
        count is None
        or _broken
        or len(trends) < MIN_FIGURES
        or multiprocessing.parent_process() is not None  # a parallel reader: draws its own
        or not can_fork()
    ):
        return None
    if _workers is not None and _workers.positions(trends) is not None:
        return _workers
    close()
    background_writes.wait()  # nothing of the writing thread half done in a forked copy
    try:
        _workers = StandingWorkers(analysed_trends(), count)
    except (OSError, BrokenProcessPool):
        _give_up()
    return _workers


def _draw_held(held: Sequence[TestTrend], chunk: _Chunk) -> list[bytes]:
    """A worker's task: the figures of its chunk, written as their data files (then none
    is sent back: the build's own writing thread wrote them all, two thousand a page
    at CSIT's size, beside the thread that files the page's graphs) or sent back."""
    trends = [held[position] for position in chunk.positions]
    figures = _drawn(trends, chunk.refs, chunk.normalised, chunk.drawing)
    if chunk.files is None:
        return figures
    for graph_id, figure in zip(chunk.graph_ids, figures, strict=True):
        chunk.files.write(graph_id, figure)
    return []


def _drawn(
    trends: Sequence[TestTrend],
    refs: Sequence[FigureRefs],
    normalised: Sequence[str],
    drawing: Drawing,
) -> list[bytes]:
    failures = failed_runs([trend.history.columns for trend in trends])
    return [
        script_bytes(
            trend_figure(
                [trend],
                "",
                note,
                trials=drawing.trials,
                x_axis=drawing.x_axis,
                links=drawing.links,
                percentile_runs=drawing.percentile_runs,
                failures=[failed],
                shared_layout=True,  # only encoded
                page_runs=ref,
            )
        )
        for trend, ref, note, failed in zip(trends, refs, normalised, failures, strict=True)
    ]


def _give_up() -> None:
    global _broken
    _broken = True
    close()


def close() -> None:
    """End the workers (to fork new ones, or at the build's end)."""
    global _workers
    if _workers is not None:
        workers, _workers = _workers, None
        workers.close()


def build_finished() -> None:
    """The workers end with the build; the next build of this process tries them again."""
    global _broken
    close()
    _broken = False
