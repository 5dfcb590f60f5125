"""Robot Framework archives made once per test session, keyed by what they hold.

Every generated build is a real ``robot`` run, the slowest thing the suite
does besides the equivalence sweeps.  Several modules ask for the same
archive, so :class:`ArchiveCache` generates each distinct set of
:func:`tools.make_robot_archive.generate_archive` options once and hands out
the same folder afterwards.  The folders are shared: a test that adds,
removes or rewrites files works on :meth:`ArchiveCache.copy`, and
:meth:`ArchiveCache.altered` lets the session fixture catch a test that
wrote into a shared folder anyway.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from tools.make_robot_archive import generate_archive

Generator = Callable[..., object]
Fingerprint = tuple[tuple[str, int, int], ...]


def cache_key(options: dict[str, Any]) -> Hashable:
    """The options as a hashable value; a list and a tuple of the same items are equal.

    Callables (``values_fn``, ``version_fn``) compare by identity, so two
    lambdas never share an archive, which is safe, merely not faster.
    """
    return tuple(sorted((name, _frozen(value)) for name, value in options.items()))


def _frozen(value: Any) -> Hashable:
    if isinstance(value, list | tuple):
        return tuple(_frozen(item) for item in value)
    if isinstance(value, set | frozenset):
        return frozenset(_frozen(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((key, _frozen(item)) for key, item in value.items()))
    return value


def fingerprint(folder: Path) -> Fingerprint:
    """Every file under ``folder`` with its size and modification time."""
    return tuple(
        sorted(
            (str(path.relative_to(folder)), path.stat().st_size, path.stat().st_mtime_ns)
            for path in folder.rglob("*")
            if path.is_file()
        )
    )


class ArchiveCache:
    """``cache(**options)``: the folder holding ``generate_archive(folder, **options)``."""

    def __init__(self, root: Path, generate: Generator = generate_archive) -> None:
        self.root = root
        self._generate = generate
        self._folders: dict[Hashable, Path] = {}
        self._fingerprints: dict[Path, Fingerprint] = {}

    def __call__(self, **options: Any) -> Path:
        key = cache_key(options)
        folder = self._folders.get(key)
        if folder is None:
            folder = self.root / f"archive-{len(self._folders) + 1}"
            self._generate(folder, **options)
            self._folders[key] = folder
            self._fingerprints[folder] = fingerprint(folder)
        return folder

    def copy(self, target: Path, **options: Any) -> Path:
        """A private copy in ``target`` (created or added to) that a test may change."""
        shutil.copytree(self(**options), target, dirs_exist_ok=True)
        return target

    @property
    def generated(self) -> int:
        """How many distinct archives were generated so far."""
        return len(self._folders)

    def altered(self) -> list[Path]:
        """Shared folders whose files changed after they were generated."""
        return [
            folder
            for folder, before in self._fingerprints.items()
            if not folder.is_dir() or fingerprint(folder) != before
        ]
