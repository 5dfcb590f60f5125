"""Shared helpers of the ingest tests: fixture locations and a loader shortcut."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.ingest import Dataset, SourceSpec, load

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RF7_DAILY = FIXTURES / "rf7" / "daily"
RF7_WEEKLY = FIXTURES / "rf7" / "weekly"
RF6 = FIXTURES / "rf6"


def expected(folder: Path) -> list[dict[str, Any]]:
    """What the generator wrote into a committed fixture folder."""
    return json.loads((folder / "expected.json").read_text())


def load_paths(*paths: Path | str, cache_dir: Path | None = None, **options: Any) -> Dataset:
    return load(SourceSpec(paths=tuple(str(p) for p in paths), **options), cache_dir=cache_dir)


@pytest.fixture
def daily_archive(tmp_path: Path) -> Path:
    """A private copy of the committed RF 7 daily archives (tests may add files)."""
    target = tmp_path / "archive"
    target.mkdir()
    for source in sorted(RF7_DAILY.glob("*.xml.gz")):
        (target / source.name).write_bytes(source.read_bytes())
    return target


@pytest.fixture
def ours(tmp_path: Path) -> Path:
    """Our results store, holding the daily RF7 archive, as ``sphinx-trending ingest`` writes it."""
    store = tmp_path / "store"
    assert main(["ingest", str(RF7_DAILY), "--store", str(store), "--quiet"]) == 0
    return store
