"""A killed ingest leaves the store as it was; the next run finishes the work.

A real ``sphinx-trending ingest`` subprocess is stopped with SIGKILL (no
clean-up code runs) at the moments that matter: after writing some data
files, after writing all of them but before the manifest, and at an
arbitrary moment of a real run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sphinxcontrib_trending.ingest import SourceSpec, load
from sphinxcontrib_trending.ingest.store.manifest import MANIFEST_NAME, read_manifest
from tests.ingest.conftest import RF7_DAILY, RF7_WEEKLY

CLI = (sys.executable, "-m", "sphinxcontrib_trending")

STALLING = """
import sys, time
from pathlib import Path
from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.ingest.store.local import LocalStore

stage, ready = sys.argv[1], Path(sys.argv[2])
real = getattr(LocalStore, stage)

def stalled(self, *args):
    if stage == "write":
        real(self, *args)
    ready.write_text(stage)
    time.sleep(600)

setattr(LocalStore, stage, stalled)
sys.exit(main(["ingest", *sys.argv[3:]]))
"""


def _ingest(inputs: Path, store: Path) -> None:
    """A plain, complete ``sphinx-trending ingest`` in its own process."""
    done = subprocess.run(
        [*CLI, "ingest", str(inputs), "--store", str(store)], capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr


def _ingest_command(*arguments: str) -> list[str]:
    return [sys.executable, "-c", STALLING, *arguments]


def _state(store: Path) -> tuple[bytes, list[str]]:
    return (store / MANIFEST_NAME).read_bytes(), sorted(
        str(path.relative_to(store)) for path in store.rglob("*.parquet")
    )


def _read(store: Path) -> list:
    dataset = load(SourceSpec(paths=(str(store),), format="parquet"))
    assert dataset.problems == []
    return dataset.builds


@pytest.fixture
def half_ingested(tmp_path: Path) -> tuple[Path, Path]:
    """A store holding three daily archives; the input folder then gets changes."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    daily = sorted(RF7_DAILY.glob("*.xml.gz"))
    for source in daily[:3]:
        (inputs / source.name).write_bytes(source.read_bytes())
    store = tmp_path / "store"
    _ingest(inputs, store)
    for source in daily[3:]:
        (inputs / source.name).write_bytes(source.read_bytes())
    (inputs / daily[0].name).write_bytes(sorted(RF7_WEEKLY.glob("*.xml.gz"))[0].read_bytes())
    return inputs, store


def _wait_for(path: Path, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)


def _finish_and_check(inputs: Path, store: Path) -> None:
    _ingest(inputs, store)
    manifest, problem = read_manifest(store)
    assert problem is None and len(manifest.entries) == 6
    assert _state(store)[1] == sorted(manifest.referenced())  # leftovers removed
    direct = load(SourceSpec(paths=(str(inputs),)))
    assert _read(store) == direct.builds


@pytest.mark.parametrize("stage", ["write", "commit"])
def test_a_kill_mid_ingest_leaves_the_store_as_it_was(
    half_ingested: tuple[Path, Path], tmp_path: Path, stage: str
) -> None:
    inputs, store = half_ingested
    before, before_builds = _state(store), _read(store)
    ready = tmp_path / "ready"
    process = subprocess.Popen(
        _ingest_command(stage, str(ready), str(inputs), "--store", str(store), "--quiet"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _wait_for(ready, process)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    manifest_bytes, files = _state(store)
    assert manifest_bytes == before[0]
    assert set(files) > set(before[1])  # new files were written, and are not part of it
    assert _read(store) == before_builds
    _finish_and_check(inputs, store)


def test_a_kill_at_any_moment_leaves_the_old_or_the_new_store(
    half_ingested: tuple[Path, Path],
) -> None:
    inputs, store = half_ingested
    before_manifest, _ = _state(store)
    before_builds = _read(store)
    process = subprocess.Popen(
        [*CLI, "ingest", str(inputs), "--store", str(store)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    time.sleep(1.0)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    builds = _read(store)
    if _state(store)[0] == before_manifest:
        assert builds == before_builds
    else:
        assert builds == load(SourceSpec(paths=(str(inputs),))).builds
    _finish_and_check(inputs, store)


def test_two_ingests_into_one_store_at_once_both_land(tmp_path: Path) -> None:
    """The lock makes them take turns: neither manifest swap loses the other's inputs."""
    store = tmp_path / "store"
    processes = [
        subprocess.Popen(
            [*CLI, "ingest", str(folder), "--store", str(store), "--quiet"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for folder in (RF7_DAILY, RF7_WEEKLY)
    ]
    for process in processes:
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
    manifest, problem = read_manifest(store)
    assert problem is None
    inputs = {Path(entry.identity["input"]).parent for entry in manifest.entries.values()}
    assert inputs == {RF7_DAILY, RF7_WEEKLY}
    assert _state(store)[1] == sorted(manifest.referenced())
