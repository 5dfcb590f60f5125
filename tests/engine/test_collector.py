"""Bulk construction runs with the cycle collector paused, and so do forked workers."""

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


def _collecting_in_worker(_item: int) -> bool:
    return gc.isenabled()


def _fails(item: int) -> int:
    if item == 3:
        raise ValueError("bad item")
    return item


def test_forked_workers_never_collect_and_the_parent_collects_again_after() -> None:
    """The workers' collector never walks what they inherit (it would copy its pages);
    the parent's is back on afterwards, also when a task fails, and nothing is frozen for
    it: asking gc what was frozen before walks every frozen object."""
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert map_forked(_collecting_in_worker, list(range(4)), workers=2) == [False] * 4
    assert gc.isenabled() and gc.get_freeze_count() == 0
    with pytest.raises(TaskFailed):
        map_forked(_fails, list(range(6)), workers=2)
    assert gc.isenabled() and gc.get_freeze_count() == 0
