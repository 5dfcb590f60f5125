"""Incremental and parallel builds give the same answers as clean serial ones."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_editing_a_page_without_directives_loads_no_source(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sphinxcontrib_trending.sphinxext as extension

    app = site()
    (Path(app.srcdir) / "plain.rst").write_text("Plain\n=====\n\nNo trending here.\n")
    app.build()
    preloads: list[object] = []
    monkeypatch.setattr(extension, "preload", preloads.append)
    (Path(app.srcdir) / "plain.rst").write_text("Plain\n=====\n\nStill no trending.\n")
    app.build()
    assert "0 added, 1 changed, 0 removed" in app.status.getvalue()
    assert preloads == []
    (Path(app.srcdir) / "dashboard.rst").write_text(
        (Path(app.srcdir) / "dashboard.rst").read_text() + "\nEdited.\n"
    )
    app.build()
    assert len(preloads) == 1
