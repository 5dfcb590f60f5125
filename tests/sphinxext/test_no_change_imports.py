"""A rebuild with nothing to do imports none of the data stack.

A site whose source is a results store is rebuilt after every CI run, and
most rebuilds of a site's pages find nothing changed: Sphinx's start, its
environment and the extension's registration are the whole cost.  The
extension's import once was most of it (a second, with numpy, pyarrow,
fsspec, requests and the analysis behind the directives and the
configuration's types), though no page is read or written.  The build runs
in a fresh interpreter, as ``sphinx-build`` does, which says what it loaded.

numpy is still loaded: the analysis package's public surface
(:func:`~sphinxcontrib_trending.analysis.classify`) comes with any of its
modules, the configuration's types and the series' identities among them.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

from sphinxcontrib_trending.cli.ingest import run
from sphinxcontrib_trending.ingest import SourceSpec
from tests.conftest import ROOTS
from tests.sphinxext import datasets

PROJECT = Path(__file__).resolve().parents[2]

DATA_STACK = ("pyarrow", "fsspec", "pandas", "plotly")
"""Libraries only loading and drawing the data need (Sphinx imports requests itself)."""

OURS = (
    "sphinxcontrib_trending.ingest.loader",
    "sphinxcontrib_trending.ingest.download",
    "sphinxcontrib_trending.sphinxext.process_memo",
    "sphinxcontrib_trending.sphinxext.directives.common",
    "sphinxcontrib_trending.analysis.history",
    "sphinxcontrib_trending.analysis.summary",
    "sphinxcontrib_trending.render.figure",
)
"""The extension's own modules that load, group or draw."""

BUILD = """
import sys
from sphinx.cmd.build import main
status = main(["-b", "html", "-q", sys.argv[1], sys.argv[2]])
print(" ".join(sorted(sys.modules)))
sys.exit(status)
"""


def store_site(tmp_path: Path) -> Path:
    """The test site with its archives ingested into a store it reads."""
    archives = tmp_path / "archives"
    datasets.write(archives, range(1, datasets.BUILDS + 1))
    store = tmp_path / "store"
    spec = SourceSpec(paths=(str(archives),), format="jsonl")
    assert run(spec, store, quiet=True, err=io.StringIO()) == 0
    site = tmp_path / "site"
    shutil.copytree(ROOTS / "test-trending", site)
    conf = (site / "conf.py").read_text()
    source = f'{{"paths": [{str(store)!r}], "format": "parquet"}}'
    (site / "conf.py").write_text(
        conf.replace('{"paths": ["data/*.jsonl"], "format": "jsonl"}', source)
    )
    return site


def build(site: Path) -> set[str]:
    """The modules a ``sphinx-build`` of ``site`` had loaded when it finished."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PROJECT), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-c", BUILD, str(site), str(site / "_build")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "[trending" not in done.stderr, done.stderr
    return set(done.stdout.split())


def pages(outdir: Path) -> dict[str, str]:
    return {page.name: page.read_text() for page in sorted(outdir.glob("*.html"))}


def test_a_rebuild_with_no_change_loads_no_data_library(tmp_path: Path) -> None:
    site = store_site(tmp_path)
    cold = build(site)
    assert {"pyarrow", *OURS} <= cold  # the cold build did load, group and draw
    written = pages(site / "_build")
    assert {"dashboard.html", "graphs.html"} <= written.keys()

    unchanged = build(site)

    assert unchanged & set(DATA_STACK) == set()
    assert unchanged & set(OURS) == set()
    assert pages(site / "_build") == written
