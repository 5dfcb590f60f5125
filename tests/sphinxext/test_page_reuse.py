"""A new build of one testbed reads again only the pages that may show something else.

Each page of the site graphs one testbed's series; a dashboard shows them
all.  What is left unread must be what a cold build of the same data
publishes, byte for byte, in any order and with ``-j 2``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.testing.util import SphinxTestApp

from benchmarks.site_files import published
from tests.conftest import ROOTS
from tests.sphinxext import datasets
from tests.sphinxext.rebuilds import forget_process_memory

MakeApp = Callable[..., SphinxTestApp]
TESTBEDS = ("2n-skx", "2n-icx")


def _write(site: Path, testbed: str, build: int, extra_test: str | None = None) -> Path:
    """One input per testbed and build, as CSIT archives each job's build."""
    rows = []
    for row in datasets.rows(range(build, build + 1)):
        row = {**row, "job": f"csit-vpp-perf-mrr-daily-master-{testbed}", "testbed": testbed}
        rows.append(row)
        if extra_test is not None and row["name"] == "stable":
            rows.append({**row, "test": f"tests.perf.{extra_test}", "name": extra_test})
    path = site / "data" / f"{testbed}-{build}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _site(folder: Path, inputs: list[tuple[str, int]]) -> Path:
    shutil.copytree(ROOTS / "test-per-testbed", folder)
    for testbed, build in inputs:
        _write(folder, testbed, build)
    return folder


def _build(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch, srcdir: Path, parallel: int = 1
) -> tuple[SphinxTestApp, list[str]]:
    """Build the site as a fresh ``sphinx-build`` process; return the app and the pages it read."""
    forget_process_memory(monkeypatch)
    read: list[str] = []

    def note(_app: Sphinx, _env: BuildEnvironment, docnames: list[str]) -> None:
        read.extend(docnames)

    app = make_app("html", srcdir=srcdir, parallel=parallel)
    app.connect("env-before-read-docs", note)
    app.build()
    return app, sorted(read)


def _same_as_cold(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch, grown: SphinxTestApp, cold_site: Path
) -> None:
    cold, _ = _build(make_app, monkeypatch, cold_site)
    grown_files, cold_files = published(grown.outdir), published(cold.outdir)
    assert sorted(grown_files) == sorted(cold_files)
    for name, data in cold_files.items():
        assert grown_files[name] == data, f"{name} differs from the cold build's"


HISTORY = [(testbed, build) for testbed in TESTBEDS for build in range(1, 30)]


@pytest.mark.parametrize("parallel", [1, 2])
def test_a_new_build_of_one_testbed_reads_only_the_pages_that_show_it(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parallel: int
) -> None:
    grown = _site(tmp_path / "grown", HISTORY)
    _, first = _build(make_app, monkeypatch, grown, parallel)
    assert first == ["dashboard", "icx", "index", "skx"]
    _write(grown, "2n-skx", 30)

    app, read = _build(make_app, monkeypatch, grown, parallel)
    assert read == ["dashboard", "skx"]

    _same_as_cold(make_app, monkeypatch, app, _site(tmp_path / "cold", [*HISTORY, ("2n-skx", 30)]))


def test_a_graph_of_series_that_arrive_now_is_read_again(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 2n-icx page graphed nothing; a new test on 2n-skx is picked by the 2n-skx page."""
    skx_only = [("2n-skx", build) for build in range(1, 30)]
    grown = _site(tmp_path / "grown", skx_only)
    _build(make_app, monkeypatch, grown)
    _write(grown, "2n-icx", 30)

    app, read = _build(make_app, monkeypatch, grown)
    assert read == ["dashboard", "icx"]
    assert "regress" in (Path(app.outdir) / "icx.html").read_text(encoding="utf-8")

    _write(grown, "2n-skx", 30, extra_test="newcomer")
    app, read = _build(make_app, monkeypatch, grown)
    assert read == ["dashboard", "skx"]
    assert "newcomer" in (Path(app.outdir) / "skx.html").read_text(encoding="utf-8")

    cold_site = _site(tmp_path / "cold", [*skx_only, ("2n-icx", 30)])
    _write(cold_site, "2n-skx", 30, extra_test="newcomer")
    _same_as_cold(make_app, monkeypatch, app, cold_site)


def test_an_input_changed_in_place_reads_every_page_again(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Builds read before and not now: any series may have changed."""
    grown = _site(tmp_path / "grown", HISTORY)
    _build(make_app, monkeypatch, grown)
    changed = _write(grown, "2n-icx", 12, extra_test="late")

    app, read = _build(make_app, monkeypatch, grown)
    assert read == ["dashboard", "icx", "skx"]

    cold_site = _site(tmp_path / "cold", HISTORY)
    shutil.copy(changed, cold_site / "data" / changed.name)
    _same_as_cold(make_app, monkeypatch, app, cold_site)


def test_a_source_dropped_from_the_configuration_reads_its_pages_again(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its pages say the source is unknown; telling pages apart never loads it."""
    grown = _site(tmp_path / "grown", HISTORY)
    _build(make_app, monkeypatch, grown)
    conf = grown / "conf.py"
    conf.write_text(conf.read_text().replace('{"perf":', '{"other":'), encoding="utf-8")

    app, read = _build(make_app, monkeypatch, grown)
    assert read == ["dashboard", "icx", "index", "skx"]
    assert "unknown source 'perf'" in app.warning.getvalue()


def test_a_new_build_gathers_only_its_own_runs_and_publishes_what_a_cold_build_does(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gathered: list[int]
) -> None:
    """The histories kept by the build before: the new build's runs are all it gathers,
    and no page tells it from a cold build of the same data."""
    grown = _site(tmp_path / "grown", HISTORY)
    _build(make_app, monkeypatch, grown)
    _write(grown, "2n-skx", 30)
    gathered.clear()
    app, _ = _build(make_app, monkeypatch, grown)

    # the kept histories and the pages' check of what the new build touched
    assert gathered and set(gathered) == {1}, "the new build's runs, and no other"
    (state,) = tmp_path.glob("grown/**/histories/*/*.json")
    assert len(json.loads(state.read_text())["segments"]) == 2
    monkeypatch.undo()
    _same_as_cold(make_app, monkeypatch, app, _site(tmp_path / "cold", [*HISTORY, ("2n-skx", 30)]))
