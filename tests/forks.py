"""Which worker counts a module's calls of ``map_forked`` ask for, recorded as they happen."""

from __future__ import annotations

from types import ModuleType

import pytest


def forks_of(module: ModuleType, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ``workers`` of each call ``module`` makes of its ``map_forked``, in order."""
    counts: list[int] = []
    real = module.map_forked

    def recording(task, items, workers, progress=None, until=None):  # type: ignore[no-untyped-def]
        counts.append(workers)
        return real(task, items, workers, progress=progress, until=until)

    monkeypatch.setattr(module, "map_forked", recording)
    return counts
