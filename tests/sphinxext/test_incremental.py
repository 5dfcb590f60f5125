"""Incremental and parallel builds give the same answers as clean serial ones."""

from __future__ import annotations

import re
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
    assert "/29</p>" not in _html(app, "failed")  # build 30 does not exist yet

    app.build()
    assert "0 added, 0 changed, 0 removed" in app.status.getvalue()

    datasets.write(Path(app.srcdir) / "data", range(30, 31), name="build-30.jsonl")
    app.status.seek(0)
    app.status.truncate()
    app.build()
    status = app.status.getvalue()
    assert "0 added, 4 changed, 0 removed" in status
    failed = _html(app, "failed")
    assert "csit-vpp-perf-mrr-daily-master-2n-skx/30" in failed


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
    from sphinxcontrib_trending.sphinxext import process_memo

    app = site()
    (Path(app.srcdir) / "plain.rst").write_text("Plain\n=====\n\nNo trending here.\n")
    app.build()
    preloads: list[object] = []
    monkeypatch.setattr(process_memo, "preload", preloads.append)
    (Path(app.srcdir) / "plain.rst").write_text("Plain\n=====\n\nStill no trending.\n")
    app.build()
    assert "0 added, 1 changed, 0 removed" in app.status.getvalue()
    assert preloads == []
    (Path(app.srcdir) / "dashboard.rst").write_text(
        (Path(app.srcdir) / "dashboard.rst").read_text() + "\nEdited.\n"
    )
    app.build()
    assert len(preloads) == 1


def _link_warnings(app) -> list[str]:
    return sorted(line for line in app.warning.getvalue().splitlines() if "trending.link" in line)


def _add_duplicate_graph_pages(srcdir: Path) -> None:
    """Six more pages (Sphinx reads five or fewer serially even with -j), two graphing regress."""
    names = []
    for index, test in enumerate(("progress", "regress", "stable", "regress", "flaky", "stable")):
        name = f"page{index}"
        names.append(name)
        (srcdir / f"{name}.rst").write_text(
            f"Page {index}\n======\n\n.. trending-graph::\n   :source: perf\n   :tests: {test}\n"
        )
    (srcdir / "index.rst").write_text(
        (srcdir / "index.rst").read_text() + "".join(f"   {name}\n" for name in names)
    )


def test_parallel_build_settles_duplicate_anchors_like_a_serial_build(
    site: SiteFactory, tmp_path: Path
) -> None:
    serial = site()
    _add_duplicate_graph_pages(Path(serial.srcdir))
    serial.build()
    parallel = site(parallel=2, builddir=tmp_path / "par")
    parallel.build()
    # really read in parallel: the progress names chunks of pages ("page0 .. page4")
    assert re.search(r"reading sources.*\[ *\d+%\] \S*\w+ \.\. \w+", parallel.status.getvalue())
    warnings = _link_warnings(serial)
    assert warnings == _link_warnings(parallel)
    # graphs.rst is first by name and owns every anchor; each later page warns once
    pages = sorted(line.split(":")[0].rsplit("/", 1)[-1] for line in warnings)
    assert pages == ["page0.rst", "page1.rst", "page2.rst", "page3.rst", "page4.rst", "page5.rst"]
    for page in ("dashboard", "failed", "graphs", *(f"page{i}" for i in range(6))):
        assert _html(serial, page) == _html(parallel, page), page
    for app in (serial, parallel):
        everywhere = [_html(app, page) for page in ("graphs", *(f"page{i}" for i in range(6)))]
        anchor = 'id="trending-perf-mrr-2n-skx-tests-perf-regress"'
        assert sum(html.count(anchor) for html in everywhere) == 1


def test_anchor_moves_when_its_owner_drops_the_graph(site: SiteFactory) -> None:
    app = site()
    srcdir = Path(app.srcdir)
    _add_duplicate_graph_pages(srcdir)
    app.build()
    assert 'href="graphs.html#trending-perf-mrr-2n-skx-tests-perf-regress"' in _html(
        app, "dashboard"
    )
    (srcdir / "graphs.rst").write_text("Graphs\n======\n\nNone here any more.\n")
    app.warning.seek(0)
    app.warning.truncate()
    app.build()
    # page1 is now first by name: it owns the anchor, and the dashboard, not re-read, links there
    assert 'href="page1.html#trending-perf-mrr-2n-skx-tests-perf-regress"' in _html(
        app, "dashboard"
    )
    assert 'id="trending-perf-mrr-2n-skx-tests-perf-regress"' in _html(app, "page1")
    assert 'id="trending-perf-mrr-2n-skx-tests-perf-regress"' not in _html(app, "page3")


def test_a_source_s_fingerprint_is_taken_once_per_build(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every page asks for it; a store's is a listing of thousands of files."""
    from sphinxcontrib_trending.sphinxext import fingerprints

    taken: list[object] = []
    real = fingerprints.fingerprint

    def counted(*args: object) -> str:
        taken.append(args)
        return real(*args)

    monkeypatch.setattr(fingerprints, "fingerprint", counted)
    app = site(builds=range(1, 30))
    app.build()  # four pages use the source
    assert len(taken) == 1
    datasets.write(Path(app.srcdir) / "data", range(30, 31), name="build-30.jsonl")
    app.build()
    assert len(taken) == 2 and "0 added, 4 changed, 0 removed" in app.status.getvalue()


def test_an_archive_rewritten_in_place_rereads_its_pages_without_a_dependency_per_file(
    site: SiteFactory,
) -> None:
    """The fingerprint, not a ``note_dependency`` per input, tells a page its data changed."""
    app = site(builds=range(1, 30))
    app.build()
    data = Path(app.srcdir) / "data"
    inputs = {str(path) for path in data.iterdir()}
    noted = {str(path) for paths in app.env.dependencies.values() for path in paths}
    assert inputs and not inputs & noted

    datasets.write(data, range(1, 31))  # the same file, one build longer
    app.status.seek(0)
    app.status.truncate()
    app.build()
    assert "0 added, 4 changed, 0 removed" in app.status.getvalue()
    assert "csit-vpp-perf-mrr-daily-master-2n-skx/30" in _html(app, "failed")
