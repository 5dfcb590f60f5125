"""A site grown by a build, reusing what it kept, publishes what a cold build of it does.

The rebuild extends each series' saved search, takes the groupings of the
series that did not change from the cache and reads the pages in whatever
order and on however many processes; none of it may show in the output.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.testing.util import SphinxTestApp

from benchmarks.site_files import published
from sphinxcontrib_trending.analysis import many as series
from tests.conftest import ROOTS
from tests.sphinxext import datasets
from tests.sphinxext.rebuilds import forget_process_memory

MakeApp = Callable[..., SphinxTestApp]


def _site(folder: Path, builds: range) -> Path:
    shutil.copytree(ROOTS / "test-trending", folder)
    datasets.write(folder / "data", builds)
    return folder


def _reversed(_app: Sphinx, _env: BuildEnvironment, docnames: list[str]) -> None:
    docnames.reverse()


@pytest.mark.parametrize("parallel", [1, 2])
@pytest.mark.parametrize("order", ["sorted", "reversed"])
def test_a_site_grown_by_a_build_equals_its_cold_build(
    make_app: MakeApp,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    parallel: int,
    order: str,
) -> None:
    forget_process_memory(monkeypatch)
    grown = _site(tmp_path / "grown", range(1, 30))
    make_app("html", srcdir=grown, parallel=parallel).build()
    datasets.write(grown / "data", range(30, 31), name="build-30.jsonl")

    forget_process_memory(monkeypatch)
    extended: list[object] = []
    extend = series.extend_jobs
    monkeypatch.setattr(
        series, "extend_jobs", lambda jobs, *rest: extended.extend(jobs) or extend(jobs, *rest)
    )
    rebuilt = make_app("html", srcdir=grown, parallel=parallel)
    if order == "reversed":
        rebuilt.connect("env-before-read-docs", _reversed)
    rebuilt.build()
    assert extended, "the rebuild extended no saved search"

    forget_process_memory(monkeypatch)
    cold = _site(tmp_path / "cold", range(1, 30))
    datasets.write(cold / "data", range(30, 31), name="build-30.jsonl")
    built = make_app("html", srcdir=cold)
    built.build()
    rebuilt_files, cold_files = published(rebuilt.outdir), published(built.outdir)
    assert sorted(rebuilt_files) == sorted(cold_files)
    for name, data in cold_files.items():
        assert rebuilt_files[name] == data, f"{name} differs from the cold build's"
