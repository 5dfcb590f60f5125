"""Incremental and parallel builds give the same answers as clean serial ones."""

from __future__ import annotations

from pathlib import Path

from tests.sphinxext import datasets
from tests.sphinxext.conftest import SiteFactory


def _html(app, name: str) -> str:
    return (Path(app.outdir) / f"{name}.html").read_text()


def test_unchanged_rebuild_reads_nothing_and_new_archive_rereads_users(
    site: SiteFactory,
) -> None:
    app = site(builds=range(1, 30))
    app.build()
    assert "-29</p>" not in _html(app, "failed")  # build 30 does not exist yet

    app.build()
    assert "0 added, 0 changed, 0 removed" in app.status.getvalue()

    datasets.write(Path(app.srcdir) / "data", range(30, 31), name="build-30.jsonl")
    app.status.seek(0)
    app.status.truncate()
    app.build()
    status = app.status.getvalue()
    assert "0 added, 4 changed, 0 removed" in status
    failed = _html(app, "failed")
    assert "csit-vpp-perf-mrr-daily-master-2n-skx-30" in failed


def test_parallel_build_equals_serial_build(site: SiteFactory, make_app, tmp_path) -> None:
    serial = site()
    serial.build()
    parallel = site(root="trending", builder="html", parallel=2, builddir=tmp_path / "par")
    parallel.build()
    for page in ("dashboard", "failed", "graphs", "degradation"):
        assert _html(serial, page) == _html(parallel, page)
