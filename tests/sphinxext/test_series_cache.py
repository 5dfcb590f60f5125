"""The site keeps each series' grouping on disk: a rebuild in a new process classifies nothing."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from sphinxcontrib_trending.analysis import many as series
from sphinxcontrib_trending.ingest import loader
from sphinxcontrib_trending.sphinxext import process_memo
from sphinxcontrib_trending.sphinxext.directives import common
from tests.forks import forks_of
from tests.sphinxext.conftest import SiteFactory
from tests.sphinxext.rebuilds import forget_process_memory


def test_rereading_pages_in_a_new_process_classifies_no_series_again(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    forget_process_memory(monkeypatch)
    app = site()
    app.build()
    pages = ("dashboard", "graphs", "failed")
    before = {page: (Path(app.outdir) / f"{page}.html").read_text() for page in pages}

    forget_process_memory(monkeypatch)
    classified: list[str] = []
    real = series.classify_job
    monkeypatch.setattr(series, "classify_job", lambda job: classified.append(job) or real(job))
    for page in pages:
        (Path(app.srcdir) / f"{page}.rst").touch()
    app = site()  # a new application, as a new sphinx-build would make
    app.build()
    assert "0 added, 3 changed" in app.status.getvalue()
    assert classified == []
    assert {page: (Path(app.outdir) / f"{page}.html").read_text() for page in pages} == before


def test_a_parallel_build_analyses_every_series_before_the_readers_fork(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With -j 2 the main process holds every analysis, grouped on forked workers."""
    forget_process_memory(monkeypatch)
    monkeypatch.setattr(series, "MIN_PARALLEL", 1)  # the test site has few series
    serial = site()
    serial.build()
    forget_process_memory(monkeypatch)
    parallel = site(parallel=2, builddir=tmp_path / "parallel")
    parallel.build()
    (loaded,) = process_memo._loaded.values()
    analysed = {key for _scope, key in process_memo._trends}
    assert analysed == {h.key for h in process_memo.source_histories(loaded, loaded.source.metric)}
    for page in ("dashboard", "graphs", "failed"):
        assert (Path(parallel.outdir) / f"{page}.html").read_text() == (
            Path(serial.outdir) / f"{page}.html"
        ).read_text()


@pytest.mark.parametrize(("workers", "forked"), [(2, {2}), (1, set())])
def test_a_serial_build_groups_on_trending_workers_processes(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch, workers: int, forked: set[int]
) -> None:
    """Without -j each page groups the series it shows on the configured processes
    (every core by default); ``trending_workers = 1`` keeps it in the build's own process."""
    forget_process_memory(monkeypatch)
    monkeypatch.setattr(series, "MIN_PARALLEL", 1)  # the test site has few series
    slots = forks_of(series, monkeypatch)
    app = site(confoverrides={"trending_workers": workers})
    app.build()
    assert set(slots) == forked
    assert "analysing" not in app.status.getvalue()  # no grouping of every series up front
    assert gc.get_freeze_count() == 0  # the loaded data is collectable again after the build
    assert "dashboard" in {Path(p).stem for p in Path(app.outdir).glob("*.html")}


def test_a_page_over_a_few_tests_groups_only_those(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A serial build groups what its pages show, not every series of the source."""
    forget_process_memory(monkeypatch)
    app = site(confoverrides={"trending_workers": 2})
    (Path(app.srcdir) / "index.rst").write_text(
        "Few\n===\n\n.. trending-graph::\n   :source: perf\n   :tests: stable\n"
    )
    for page in Path(app.srcdir).glob("*.rst"):
        if page.name != "index.rst":
            page.unlink()
    app = site(confoverrides={"trending_workers": 2})
    app.build()
    (loaded,) = process_memo._loaded.values()
    every = process_memo.source_histories(loaded, loaded.source.metric)
    grouped = {key for _scope, key in process_memo._trends}
    assert grouped == {history.key for history in every if history.name == "stable"}
    assert len(every) > len(grouped)


def test_the_loaded_data_and_histories_are_frozen_while_the_pages_render(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The collector would walk them for nothing: they live until the build ends."""
    forget_process_memory(monkeypatch)
    seen: list[bool] = []
    real = process_memo.trends_for

    def recording(loaded, selected, *args, **kwargs):  # type: ignore[no-untyped-def]
        tracked = {id(obj) for obj in gc.get_objects()}  # frozen objects are not listed
        # a history's runs are made when read: what it keeps are its columns
        build, runs = loaded.dataset.builds[0], selected[0].runs
        seen.append(id(build) not in tracked and id(runs) not in tracked)
        return real(loaded, selected, *args, **kwargs)

    monkeypatch.setattr(common, "trends_for", recording)
    app = site()
    app.build()
    assert seen and all(seen)
    assert gc.get_freeze_count() == 0  # thawed when the build ended


def test_trends_are_frozen_once_analysed_and_pages_render_without_the_collector(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trends live until the build ends, and rendering makes objects reference
    counting frees: a collection while the pages render walks them for nothing."""
    forget_process_memory(monkeypatch)
    frozen: list[bool] = []
    collecting: list[bool] = []
    real_trends, real_run = process_memo.trends_for, common.TrendingDirective.run

    def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        trends = real_trends(*args, **kwargs)
        tracked = {id(obj) for obj in gc.get_objects()}  # frozen objects are not listed
        frozen.append(all(id(trend) not in tracked for trend in trends))
        return trends

    def rendering(self):  # type: ignore[no-untyped-def]
        real_render = self.render
        self.render = lambda: collecting.append(gc.isenabled()) or real_render()
        return real_run(self)

    monkeypatch.setattr(common, "trends_for", recording)
    monkeypatch.setattr(common.TrendingDirective, "run", rendering)
    app = site()
    app.build()
    assert frozen and all(frozen)
    assert collecting and not any(collecting)
    assert gc.isenabled() and gc.get_freeze_count() == 0  # as before the build


@pytest.mark.parametrize(("workers", "forked"), [(2, [2]), (1, [])])
def test_a_cold_build_parses_its_inputs_on_trending_workers_processes(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch, workers: int, forked: list[int]
) -> None:
    """The main process forks the parsers of new inputs; the pages come out the same."""
    forget_process_memory(monkeypatch)
    serial = site(confoverrides={"trending_workers": 1})
    serial.build()
    forget_process_memory(monkeypatch)
    calls = forks_of(loader, monkeypatch)
    app = site(confoverrides={"trending_workers": workers}, builddir=serial.outdir.parent / "w")
    app.build()
    assert calls == forked
    for page in ("dashboard", "graphs", "failed"):
        assert (Path(app.outdir) / f"{page}.html").read_text() == (
            Path(serial.outdir) / f"{page}.html"
        ).read_text()
