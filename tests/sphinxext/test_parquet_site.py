"""A site whose source is a results store renders what the archives would."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

from sphinxcontrib_trending.cli.ingest import run
from sphinxcontrib_trending.ingest import SourceSpec
from tests.sphinxext.conftest import SiteFactory

PAGES = ("dashboard.html", "failed.html", "graphs.html")
ARCHIVE_SOURCE = '{"paths": ["data/*.jsonl"], "format": "jsonl"}'


def test_a_parquet_source_builds_the_same_pages(
    site: SiteFactory, make_app: Callable[..., SphinxTestApp], tmp_path: Path
) -> None:
    archives = site()
    archives.build()
    srcdir = Path(archives.srcdir)
    store = tmp_path / "store"
    spec = SourceSpec(paths=(str(srcdir / "data"),), format="jsonl")
    assert run(spec, store, quiet=True, err=io.StringIO()) == 0
    stored = tmp_path / "stored-site"
    shutil.copytree(srcdir, stored, ignore=shutil.ignore_patterns("_build", "data"))
    conf = (stored / "conf.py").read_text()
    assert ARCHIVE_SOURCE in conf
    parquet = f'{{"paths": [{str(store)!r}], "format": "parquet"}}'
    (stored / "conf.py").write_text(conf.replace(ARCHIVE_SOURCE, parquet))
    app = make_app("html", srcdir=stored)
    app.build()
    assert "[trending" not in app.warning.getvalue()  # no warning of ours (data, config)
    for page in PAGES:
        expected = (Path(archives.outdir) / page).read_text()
        assert (Path(app.outdir) / page).read_text() == expected, page
