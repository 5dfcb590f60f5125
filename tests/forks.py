"""Which worker counts a module's forked maps ask for, recorded as they happen."""

from __future__ import annotations

from types import ModuleType

import pytest


def forks_of(module: ModuleType, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ``workers`` of each forked map ``module`` makes, in order: of its
    ``ReadyWorkers`` (the grouping's, forked from a helper that loads the search first)
    or else of its ``map_forked``."""
    counts: list[int] = []
    if hasattr(module, "ReadyWorkers"):
        ready = module.ReadyWorkers

        def recorded(prepare, shared, workers):  # type: ignore[no-untyped-def]
            counts.append(workers)
            return ready(prepare, shared, workers)

        monkeypatch.setattr(module, "ReadyWorkers", recorded)
        return counts
    real = module.map_forked

    def recording(task, items, workers, progress=None, until=None):  # type: ignore[no-untyped-def]
        counts.append(workers)
        return real(task, items, workers, progress=progress, until=until)

    monkeypatch.setattr(module, "map_forked", recording)
    return counts
