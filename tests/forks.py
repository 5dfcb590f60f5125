"""Which worker counts a module's forked maps ask for, recorded as they happen."""

from __future__ import annotations

from types import ModuleType

import pytest


def forks_of(module: ModuleType, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ``workers`` of each forked map ``module`` makes, in order: of its
    ``forked_results`` (the grouping's, which files each batch as it comes) or else of
    its ``map_forked``."""
    counts: list[int] = []
    if hasattr(module, "forked_results"):
        streamed = module.forked_results

        def streaming(task, items, workers, progress=None):  # type: ignore[no-untyped-def]
            counts.append(workers)
            return streamed(task, items, workers, progress=progress)

        monkeypatch.setattr(module, "forked_results", streaming)
        return counts
    real = module.map_forked

    def recording(task, items, workers, progress=None, until=None):  # type: ignore[no-untyped-def]
        counts.append(workers)
        return real(task, items, workers, progress=progress, until=until)

    monkeypatch.setattr(module, "map_forked", recording)
    return counts
