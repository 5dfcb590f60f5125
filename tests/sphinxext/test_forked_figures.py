"""A page of many per-test graphs draws its figures on forked workers, to the same bytes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sphinxcontrib_trending.sphinxext.directives import graph
from sphinxcontrib_trending.sphinxext.figure_files import FOLDER, SUFFIX
from tests.forks import forks_of
from tests.sphinxext.conftest import SiteFactory
from tests.sphinxext.rebuilds import forget_process_memory


def _published(outdir: str, doctreedir: str) -> dict[str, str]:
    """The page's figures as kept for the writer, and each graph's published data file."""
    found = {"kept": Path(doctreedir, FOLDER, "graphs" + SUFFIX).read_text(encoding="utf-8")}
    for script in sorted(Path(outdir).glob("graphs.trending-graph-*.js")):
        found[script.name] = script.read_text(encoding="utf-8")
    return found


def test_a_page_of_many_graphs_draws_them_on_forked_workers_to_the_same_figures(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(graph, "FORKED_FIGURES", 2)  # the test page has 5 graphs: 3 batches
    drawers = tmp_path / "drawers"
    figures = graph._Drawing.figures

    def noting_who_draws(self: graph._Drawing, jobs: list) -> list[str]:  # type: ignore[type-arg]
        with drawers.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return figures(self, jobs)

    monkeypatch.setattr(graph._Drawing, "figures", noting_who_draws)
    workers = forks_of(graph, monkeypatch)
    forget_process_memory(monkeypatch)
    forked = site(confoverrides={"trending_workers": 2})
    forked.build()
    on_workers = _published(forked.outdir, forked.doctreedir)
    pids = set(drawers.read_text().split())
    assert workers == [2] and len(pids) >= 1 and str(os.getpid()) not in pids

    drawers.unlink()
    forget_process_memory(monkeypatch)
    alone = site(confoverrides={"trending_workers": 1}, freshenv=True)
    alone.build()
    assert set(drawers.read_text().split()) == {str(os.getpid())}
    assert _published(alone.outdir, alone.doctreedir) == on_workers
    assert len(on_workers) == 1 + 5  # what the page holds: every graph's figure
