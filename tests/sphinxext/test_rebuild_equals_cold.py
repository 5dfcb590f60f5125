"""A site grown by a build, reusing what it kept, publishes what a cold build of it does.

The rebuild extends each series' saved search, takes the groupings of the
series that did not change from the cache and reads the pages in whatever
order and on however many processes; none of it may show in the output.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.testing.util import SphinxTestApp

from sphinxcontrib_trending.analysis import many as series
from sphinxcontrib_trending.sphinxext import process_memo
from tests.conftest import ROOTS
from tests.sphinxext import datasets

MakeApp = Callable[..., SphinxTestApp]


def _forget_process_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the next build ran in a fresh ``sphinx-build`` process."""
    for memo in ("_loaded", "_histories", "_trends", "_series"):
        monkeypatch.setattr(process_memo, memo, {})


def _site(folder: Path, builds: range) -> Path:
    shutil.copytree(ROOTS / "test-trending", folder)
    datasets.write(folder / "data", builds)
    return folder


def _published(outdir: str | os.PathLike[str]) -> dict[str, bytes]:
    """Every file a site publishes (not Sphinx's hidden ones), by its path in the site."""
    found = {}
    for folder, folders, files in os.walk(outdir):
        folders[:] = [name for name in folders if not name.startswith(".")]
        for name in files:
            if not name.startswith("."):
                path = Path(folder, name)
                found[path.relative_to(outdir).as_posix()] = path.read_bytes()
    return found


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
    _forget_process_memory(monkeypatch)
    grown = _site(tmp_path / "grown", range(1, 30))
    make_app("html", srcdir=grown, parallel=parallel).build()
    datasets.write(grown / "data", range(30, 31), name="build-30.jsonl")

    _forget_process_memory(monkeypatch)
    extended: list[object] = []
    extend = series.extend_job
    monkeypatch.setattr(
        series, "extend_job", lambda job, *rest: extended.append(job) or extend(job, *rest)
    )
    rebuilt = make_app("html", srcdir=grown, parallel=parallel)
    if order == "reversed":
        rebuilt.connect("env-before-read-docs", _reversed)
    rebuilt.build()
    assert extended, "the rebuild extended no saved search"

    _forget_process_memory(monkeypatch)
    cold = _site(tmp_path / "cold", range(1, 30))
    datasets.write(cold / "data", range(30, 31), name="build-30.jsonl")
    built = make_app("html", srcdir=cold)
    built.build()
    rebuilt_files, cold_files = _published(rebuilt.outdir), _published(built.outdir)
    assert sorted(rebuilt_files) == sorted(cold_files)
    for name, data in cold_files.items():
        assert rebuilt_files[name] == data, f"{name} differs from the cold build's"
