"""``sphinx-trending ingest``: through ``run()`` and the command line."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.cli.exits import EXIT_FAILURES, EXIT_USAGE
from sphinxcontrib_trending.cli.ingest import run
from sphinxcontrib_trending.ingest import SourceSpec, load, loader
from sphinxcontrib_trending.ingest.store.manifest import read_manifest
from tests.ingest.conftest import RF7_DAILY
from tests.store_tree import store_tree


def test_ingest_parses_once_and_reports_its_work(tmp_path: Path) -> None:
    err = io.StringIO()
    spec = SourceSpec(paths=(str(RF7_DAILY),))
    assert run(spec, tmp_path / "store", err=err) == 0
    lines = err.getvalue().splitlines()
    assert lines[0] == "sphinx-trending ingest: parsing 6 of 6 input(s)"
    assert lines[-1].endswith("store: 6 input(s), 6 parsed, 0 unchanged")
    err = io.StringIO()
    assert run(spec, tmp_path / "store", err=err) == 0
    assert err.getvalue().splitlines() == [
        f"sphinx-trending ingest: {tmp_path / 'store'}: 6 input(s), 0 parsed, 6 unchanged"
    ]
    manifest, problem = read_manifest(tmp_path / "store")
    assert problem is None and len(manifest.entries) == 6


def test_workers_and_scheduler_go_straight_to_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[dict[str, object]] = []
    real = loader.map_ordered

    def recording(task, items, **options):
        asked.append(
            {k: v for k, v in options.items() if k not in ("progress", "until")} | {"task": task}
        )
        return real(task, items, progress=options.get("progress"))

    monkeypatch.setattr(loader, "map_ordered", recording)
    argv = [str(RF7_DAILY), "--store", str(tmp_path / "s"), "--quiet"]
    assert main(["ingest", *argv, "--workers", "3", "--scheduler", "tcp://10.0.0.1:8786"]) == 0
    # a remote worker need not see this folder: the parsed builds come back here
    assert asked == [{"workers": 3, "scheduler": "tcp://10.0.0.1:8786", "task": loader._parse_job}]
    asked.clear()
    forked: list[tuple[object, int]] = []
    real_forked = loader.map_forked

    def recording_forks(task, items, workers, progress=None, until=None):
        forked.append((task, workers))
        return real_forked(task, items, workers, progress=progress, until=until)

    monkeypatch.setattr(loader, "map_forked", recording_forks)
    argv = [str(RF7_DAILY), "--store", str(tmp_path / "t"), "--quiet"]
    assert main(["ingest", *argv, "--workers", "3"]) == 0
    # local workers are forked (no Dask cluster to start), write their own rows
    # and send back only the files' records
    assert forked == [(loader._parse_into_store_job, 3)] and asked == []


def test_a_bad_input_is_reported_the_rest_stored(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "in" / "job__1__output.xml"
    bad.parent.mkdir()
    bad.write_text("<robot><suite name='x'>")
    good = tmp_path / "in" / "job__2__output.xml.gz"
    good.write_bytes(sorted(RF7_DAILY.glob("*.xml.gz"))[0].read_bytes())
    store = tmp_path / "store"
    assert main(["ingest", str(tmp_path / "in"), "--store", str(store), "--quiet"]) == EXIT_FAILURES
    assert f"{bad}:1:" in capsys.readouterr().err
    stored = load(SourceSpec(paths=(str(store),), format="parquet"))
    assert len(stored.builds) == 1
    manifest, _ = read_manifest(store)
    (bad_entry,) = [e for e in manifest.entries.values() if e.identity["input"] == str(bad)]
    assert bad_entry.files == () and bad_entry.problems[0].line == 1  # problems are kept


@pytest.mark.parametrize(
    "extra",
    [["--workers", "0"], ["--format", "parquet"], ["--format", "asv"], ["--build-pattern", "("]],
)
def test_usage_errors(tmp_path: Path, extra: list[str]) -> None:
    assert main(["ingest", str(RF7_DAILY), "--store", str(tmp_path), *extra]) == EXIT_USAGE
    assert not (tmp_path / "_manifest.json").exists()


def test_a_missing_data_file_has_its_input_parsed_again(tmp_path: Path) -> None:
    spec = SourceSpec(paths=(str(RF7_DAILY),))
    store = tmp_path / "store"
    assert run(spec, store, quiet=True, err=io.StringIO()) == 0
    victim = sorted(store.rglob("*.parquet"))[0]
    victim.unlink()
    err = io.StringIO()
    assert run(spec, store, quiet=True, err=err) == 0  # a store problem, not an input's
    assert f"{victim}: missing store file, its input is parsed again" in err.getvalue()
    assert err.getvalue().rstrip().endswith("6 input(s), 1 parsed, 5 unchanged")
    stored = load(SourceSpec(paths=(str(store),), format="parquet"))
    assert stored.problems == [] and stored.builds == load(spec).builds


def test_the_same_inputs_make_the_same_store_byte_for_byte(tmp_path: Path) -> None:
    spec = SourceSpec(paths=(str(RF7_DAILY),))
    for name in ("a", "b"):
        assert run(spec, tmp_path / name, quiet=True, err=io.StringIO()) == 0
    first = store_tree(tmp_path / "a")
    assert first == store_tree(tmp_path / "b")
    assert "_manifest.json" in first and len(first) > 6


def test_local_workers_write_the_store_a_build_writes_byte_for_byte(tmp_path: Path) -> None:
    """Rows written by two worker processes equal the ones a build writes itself."""
    spec = SourceSpec(paths=(str(RF7_DAILY),))
    assert run(spec, tmp_path / "ingested", workers=2, quiet=True, err=io.StringIO()) == 0
    dataset = load(spec, tmp_path / "build-cache")
    assert len(dataset.builds) == 6
    from_workers = store_tree(tmp_path / "ingested")
    assert from_workers == store_tree(tmp_path / "build-cache" / "store")
    assert len(from_workers) > 6
    again = load(SourceSpec(paths=(str(RF7_DAILY),)), tmp_path / "build-cache")
    assert again.parsed == [] and again.builds == dataset.builds


def test_a_store_that_cannot_be_written_is_reported_and_nothing_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(self, key, builds):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(loader.LocalStore, "write", full)
    err = io.StringIO()
    status = run(SourceSpec(paths=(str(RF7_DAILY),)), tmp_path / "store", quiet=True, err=err)
    assert status == EXIT_FAILURES
    for name in sorted(path.name for path in RF7_DAILY.glob("*.xml.gz")):  # each input named
        assert re.search(
            rf"cannot write the results store: '[^']*{re.escape(name)}': "
            r"\[Errno 28\] No space left on device",
            err.getvalue(),
        )
    assert (
        err.getvalue()
        .splitlines()[-1]
        .endswith("6 input(s), 6 parsed, 0 unchanged, 6 parsed but not stored")
    )
    manifest, _problem = read_manifest(tmp_path / "store")
    assert manifest.entries == {}


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_one_rewritten_progress_line(tmp_path: Path) -> None:
    err = _Terminal()
    assert run(SourceSpec(paths=(str(RF7_DAILY),)), tmp_path / "store", err=err) == 0
    progress, summary = err.getvalue().rsplit("\n", 2)[:2]
    assert "\n" not in progress  # every update rewrote the same line
    assert progress.endswith("parsed 6/6") and progress.count("\r\x1b[K") == 7
    assert summary.endswith("6 input(s), 6 parsed, 0 unchanged")
