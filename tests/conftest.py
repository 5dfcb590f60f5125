"""Shared fixtures: Sphinx's own testing fixtures, the test-site roots and robot archives."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from sphinxcontrib_trending.analysis.history import Gathering
from sphinxcontrib_trending.ingest.model import Build
from tests import shared_data
from tests.archives import ArchiveCache, generator_salt

pytest_plugins = ("sphinx.testing.fixtures", "pytester")

ROOTS = Path(__file__).resolve().parent / "roots"


@pytest.fixture(scope="session")
def rootdir() -> Path:
    return ROOTS


@pytest.fixture(scope="session")
def robot_archive(
    tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config
) -> Iterator[ArchiveCache]:
    """``robot_archive(**generate_archive_options)``: a folder shared by the whole session.

    Each distinct set of options is generated once (real ``robot`` runs) and
    kept in pytest's cache for later sessions (``--cache-clear`` or
    ``-p no:cacheprovider`` for fresh ones).  Treat the folder as read-only;
    to change an archive, work on ``robot_archive.copy(tmp_path / "x", **options)``.
    A test that wrote into a shared folder makes the session end in an error
    naming the folder.
    """
    pytest_cache = getattr(pytestconfig, "cache", None)
    cache = ArchiveCache(
        tmp_path_factory.mktemp("robot-archives"),
        store=pytest_cache.mkdir("robot-archives") if pytest_cache is not None else None,
        salt=generator_salt(),
    )
    yield cache
    altered = cache.altered()
    if altered:
        pytest.fail(
            "shared robot archives changed by a test (copy them first): "
            + ", ".join(map(str, altered))
        )


def pytest_runtest_setup(item: pytest.Item) -> None:
    """``shared_data`` tests skip, naming the folder, when the evaluation data is absent."""
    marker = item.get_closest_marker("shared_data")
    if marker is None:
        return
    reason = shared_data.absent_reason(*marker.args)
    if reason is None:
        return
    if shared_data.required():
        pytest.fail(f"{reason}; {shared_data.REQUIRE} is set", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def gathered(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many builds each gathering of histories was given to read: what kept
    histories spare a new build."""
    counts: list[int] = []
    add = Gathering.add

    def counted(self: Gathering, builds: Sequence[Build], accept: object = None) -> None:
        counts.append(len(builds))
        add(self, builds, accept)  # type: ignore[arg-type]

    monkeypatch.setattr(Gathering, "add", counted)
    return counts
