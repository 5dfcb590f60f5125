"""A page of a graph per test draws its figures on the build's workers: the same site.

The figures drawn on workers, those a failed task leaves to the build's own
process, and those of a build that draws them all itself must be the same
bytes in the same files; the workers end with the build.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
from sphinx.testing.util import SphinxTestApp

from sphinxcontrib_trending.analysis.summary import TestTrend
from sphinxcontrib_trending.engine.standing_workers import StandingWorkers
from sphinxcontrib_trending.sphinxext import figure_files, figure_workers
from tests.conftest import ROOTS
from tests.sphinxext import built_html, datasets
from tests.sphinxext.rebuilds import forget_process_memory

SiteBuild = Callable[..., tuple[SphinxTestApp, dict[str, bytes]]]


@pytest.fixture
def built(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp], monkeypatch: pytest.MonkeyPatch
) -> SiteBuild:
    """``built(name, workers, builder)``: the test site built afresh, and its output's
    files and the figures kept beside its doctrees (a builder without data files')."""

    def build(
        name: str, workers: int, builder: str = "html"
    ) -> tuple[SphinxTestApp, dict[str, bytes]]:
        forget_process_memory(monkeypatch)
        srcdir = tmp_path / name
        shutil.copytree(ROOTS / "test-trending", srcdir)
        datasets.write(srcdir / "data", range(1, datasets.BUILDS + 1))
        app = make_app(builder, srcdir=srcdir, confoverrides={"trending_workers": workers})
        app.build()
        outdir, kept = Path(app.outdir), Path(app.doctreedir) / figure_files.FOLDER
        files = {
            str(path.relative_to(folder.parent)): path.read_bytes()
            for folder in (outdir, kept)
            for path in folder.rglob("*")
            if path.is_file() and path.name != ".buildinfo"
        }
        return app, files

    return build


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[object]]:
    """Small chunks on workers for the test site's five tests; the tasks handed to the
    workers and the figures this process drew itself, as this process saw them."""
    monkeypatch.setattr(figure_workers, "MIN_FIGURES", 1)
    monkeypatch.setattr(figure_workers, "CHUNK", 2)
    calls: dict[str, list[object]] = {"tasks": [], "drawn here": [], "forked": []}
    submit, drawn = StandingWorkers.submit_bytes, figure_workers._drawn
    start = StandingWorkers.__init__

    def counted_submit(self: StandingWorkers[TestTrend], task: object, chunk: object) -> object:
        calls["tasks"].append(chunk)
        return submit(self, task, chunk)  # type: ignore[arg-type]

    def counted_drawn(trends: Sequence[TestTrend], *args: object) -> list[bytes]:
        calls["drawn here"].extend(trends)
        return drawn(trends, *args)  # type: ignore[arg-type]

    def counted_start(self: StandingWorkers[TestTrend], held: list[object], workers: int) -> None:
        calls["forked"].append(workers)
        start(self, held, workers)

    monkeypatch.setattr(StandingWorkers, "submit_bytes", counted_submit)
    monkeypatch.setattr(StandingWorkers, "__init__", counted_start)
    monkeypatch.setattr(figure_workers, "_drawn", counted_drawn)
    return calls


@pytest.mark.parametrize("builder", ["html", "text"])
def test_figures_drawn_on_workers_are_the_site_drawn_here(
    built: SiteBuild, counted: dict[str, list[object]], builder: str
) -> None:
    """In an HTML build the workers write the data files; for other builders the
    figures come back to be kept beside the doctrees."""
    _, serial = built("serial", 1, builder)
    assert counted["forked"] == []
    assert len(counted["drawn here"]) == len(datasets.TESTS)
    counted["drawn here"].clear()
    app, pooled = built("pooled", 2, builder)
    assert counted["forked"] == [2]  # once for the build
    assert len(counted["tasks"]) == 3  # five tests, two a task
    assert counted["drawn here"] == []
    assert pooled == serial
    if builder == "html":
        figures = built_html.figures(app.outdir, "graphs")
        assert len(figures) == len(datasets.TESTS)
    else:
        assert any(name.endswith(figure_files.SUFFIX) for name in pooled)
    assert figure_workers._workers is None  # ended with the build


def _refused(held: Sequence[TestTrend], chunk: object) -> list[bytes]:
    raise ValueError("a worker's figure failed")


def _dies(held: Sequence[TestTrend], chunk: object) -> list[bytes]:
    os._exit(3)


@pytest.mark.parametrize("task", [_refused, _dies], ids=["fails", "dies"])
def test_figures_a_worker_did_not_draw_are_drawn_here_alike(
    built: SiteBuild,
    counted: dict[str, list[object]],
    monkeypatch: pytest.MonkeyPatch,
    task: Callable[[Sequence[TestTrend], object], list[bytes]],
) -> None:
    _, serial = built("serial", 1)
    counted["drawn here"].clear()
    monkeypatch.setattr(figure_workers, "_draw_held", task)  # the workers fork with it
    app, pooled = built("pooled", 2)
    assert len(counted["drawn here"]) == len(datasets.TESTS)
    assert pooled == serial
    # a second app in one process registers Sphinx's nodes again: nothing else is said
    said = [
        line for line in app.warning.getvalue().splitlines() if "is already registered" not in line
    ]
    assert said == []
    assert figure_workers._workers is None
    assert not figure_workers._broken  # the next build tries workers again


def test_workers_that_cannot_be_forked_leave_the_figures_here(
    built: SiteBuild, counted: dict[str, list[object]], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, serial = built("serial", 1)
    counted["drawn here"].clear()

    def out_of_memory(held: object, workers: int) -> StandingWorkers[TestTrend]:
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(figure_workers, "StandingWorkers", out_of_memory)
    _, pooled = built("pooled", 2)
    assert len(counted["drawn here"]) == len(datasets.TESTS)
    assert pooled == serial
    assert not figure_workers._broken


def test_workers_that_die_while_a_page_hands_out_its_chunks_leave_the_rest_here(
    built: SiteBuild, counted: dict[str, list[object]], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, serial = built("serial", 1)
    counted["drawn here"].clear()
    hand_out = StandingWorkers.submit_bytes

    def breaks_second(self: StandingWorkers[TestTrend], task: object, chunk: object) -> object:
        if counted["tasks"]:
            raise BrokenProcessPool("a worker died")
        return hand_out(self, task, chunk)  # type: ignore[arg-type]

    monkeypatch.setattr(StandingWorkers, "submit_bytes", breaks_second)
    _, pooled = built("pooled", 2)
    assert len(counted["tasks"]) == 1  # the first chunk was handed out, then none
    # the first chunk's two figures came from the worker, or drawn here if it was ended first
    assert len(datasets.TESTS) - 2 <= len(counted["drawn here"]) <= len(datasets.TESTS)
    assert pooled == serial
    assert figure_workers._workers is None
    assert not figure_workers._broken
