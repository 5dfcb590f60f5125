"""A store's manifest or data file replaced by a device, a FIFO or a huge sparse file: refused.

Each would cost all the memory there is if read naively (``/dev/zero``
never ends; an 8 GiB sparse file takes no disk and 8 GiB to read).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from sphinxcontrib_trending.ingest import SourceSpec, load
from sphinxcontrib_trending.ingest.store.manifest import MANIFEST_NAME
from tests.hostile.documents import load_here, rf7, write

Plant = Callable[[Path], str]
"""Replaces the file at a path; returns what the refusal says."""


def _zero_link(path: Path) -> str:
    path.unlink()
    path.symlink_to("/dev/zero")
    return "not a regular file"


def _fifo(path: Path) -> str:
    path.unlink()
    os.mkfifo(path)
    return "not a regular file"


def _sparse(path: Path) -> str:
    with path.open("wb") as stream:
        stream.truncate(8 * 1024**3)
    return "8,589,934,592 bytes, over the "


PLANTS: dict[str, Plant] = {"zero-link": _zero_link, "fifo": _fifo, "sparse-8GiB": _sparse}


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Path, Path]:
    """An input and the cache folder whose store holds it."""
    data = write(tmp_path / "data", "job__1__output.xml", rf7())
    cache = tmp_path / "cache"
    assert load_here(data, cache_dir=cache).problems == []
    return data, cache


@pytest.mark.parametrize("plant", PLANTS.values(), ids=PLANTS.keys())
def test_a_planted_manifest_is_refused_and_replaced(
    stored: tuple[Path, Path], plant: Plant
) -> None:
    data, cache = stored
    manifest = cache / "store" / MANIFEST_NAME
    said = plant(manifest)
    again = load_here(data, cache_dir=cache)
    assert [build.build for build in again.builds] == ["1"] and again.parsed == [str(data)]
    (problem,) = again.problems
    assert problem.origin == str(manifest) and problem.subtype == "cache"
    assert "unreadable store manifest, its inputs are parsed again: " in problem.message
    assert said in problem.message
    assert manifest.is_file() and not manifest.is_symlink()  # the commit wrote a real one
    assert load_here(data, cache_dir=cache).problems == []


@pytest.mark.parametrize("plant", PLANTS.values(), ids=PLANTS.keys())
def test_a_parquet_source_refuses_a_planted_manifest(
    stored: tuple[Path, Path], plant: Plant
) -> None:
    _data, cache = stored
    said = plant(cache / "store" / MANIFEST_NAME)
    dataset = load(SourceSpec(paths=(str(cache / "store"),), format="parquet"))
    assert dataset.builds == []
    (problem,) = dataset.problems
    assert "cannot read the store: corrupt store manifest _manifest.json: " in problem.message
    assert said in problem.message


@pytest.mark.parametrize("plant", PLANTS.values(), ids=PLANTS.keys())
def test_a_planted_data_file_is_refused_and_its_input_parsed_again(
    stored: tuple[Path, Path], plant: Plant
) -> None:
    data, cache = stored
    (victim,) = (cache / "store").rglob("*.parquet")
    plant(victim)
    again = load_here(data, cache_dir=cache)
    assert [build.build for build in again.builds] == ["1"] and again.parsed == [str(data)]
    assert any(
        problem.origin == str(victim) and problem.subtype == "cache" for problem in again.problems
    )
