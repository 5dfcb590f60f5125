"""Bulk construction runs with the cycle collector paused; forking freezes what workers inherit."""

from __future__ import annotations

import gc

import pytest

from sphinxcontrib_trending.engine.collector import collector_paused
from sphinxcontrib_trending.engine.forked import map_forked
from sphinxcontrib_trending.engine.mapping import TaskFailed


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_inside_and_as_it_was_after(enabled: bool) -> None:
    (gc.enable if enabled else gc.disable)()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(RuntimeError), collector_paused():
            raise RuntimeError("a failed read")
        assert gc.isenabled() is enabled
    finally:
        gc.enable()


def _frozen_in_worker(_item: int) -> int:
    return gc.get_freeze_count()


def _fails(item: int) -> int:
    if item == 3:
        raise ValueError("bad item")
    return item


def test_forked_workers_inherit_a_frozen_heap_and_the_parent_thaws_after() -> None:
    """The workers' collector never walks what they inherit; the parent's own
    objects are collectable again afterwards, also when a task fails."""
    assert gc.get_freeze_count() == 0
    counts = map_forked(_frozen_in_worker, list(range(4)), workers=2)
    assert all(count > 0 for count in counts)
    assert gc.get_freeze_count() == 0
    with pytest.raises(TaskFailed):
        map_forked(_fails, list(range(6)), workers=2)
    assert gc.get_freeze_count() == 0
