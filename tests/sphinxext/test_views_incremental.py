"""The job statistics, noise and per-build pages are incremental and parallel-safe."""

from __future__ import annotations

from pathlib import Path

from tests.sphinxext import datasets
from tests.sphinxext.conftest import SiteFactory

VIEWS = (
    "Views\n=====\n\n"
    ".. trending-job-stats::\n   :source: perf\n\n"
    ".. trending-noise::\n   :source: perf\n\n"
    ".. trending-failed-tests::\n   :source: perf\n   :mode: per-build\n"
)


def _html(app, name: str) -> str:
    return (Path(app.outdir) / f"{name}.html").read_text()


def test_new_archive_rereads_the_views_page_only_then(site: SiteFactory) -> None:
    app = site(builds=range(1, 30))
    (Path(app.srcdir) / "views.rst").write_text(VIEWS)
    app.build()
    assert "master-2n-skx/30" not in _html(app, "views")
    app.status.seek(0)
    app.status.truncate()
    app.build()
    assert "0 added, 0 changed, 0 removed" in app.status.getvalue()
    datasets.write(Path(app.srcdir) / "data", range(30, 31), name="build-30.jsonl")
    app.build()
    assert "csit-vpp-perf-mrr-daily-master-2n-skx/30" in _html(app, "views")


def test_parallel_build_equals_serial_build(site: SiteFactory, tmp_path: Path) -> None:
    serial = site()
    (Path(serial.srcdir) / "views.rst").write_text(VIEWS)
    serial.build()
    parallel = site(root="trending", builder="html", parallel=2, builddir=tmp_path / "par")
    parallel.build()
    assert _html(serial, "views") == _html(parallel, "views")
    assert "trending-job-stats" in _html(parallel, "views")
