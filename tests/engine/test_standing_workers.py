"""Workers forked once hold what this process held then, for task after task."""

from __future__ import annotations

import gc
import os
import signal
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool

import pytest

from sphinxcontrib_trending.engine.standing_workers import StandingWorkers


class _Unpicklable:
    """A held item no pipe can carry: a worker that has it inherited it."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("not to be pickled")


def _values(held: Sequence[_Unpicklable], positions: list[int]) -> tuple[list[int], int, bool]:
    """The held values at ``positions``, where the task ran, and whether it collects cycles."""
    return [held[at].value for at in positions], os.getpid(), gc.isenabled()


def _texts(held: Sequence[_Unpicklable], positions: list[int]) -> list[bytes]:
    return [str(held[at].value).encode() * held[at].value for at in positions]


def _refused(held: Sequence[_Unpicklable], positions: list[int]) -> list[bytes]:
    raise ValueError(f"item {positions[0]} is refused")


def _dies(held: Sequence[_Unpicklable], positions: list[int]) -> list[int]:
    os._exit(3)


@pytest.fixture
def items() -> list[_Unpicklable]:
    return [_Unpicklable(value) for value in range(12)]


def test_tasks_name_held_items_by_position_and_run_on_the_forked_workers(
    items: list[_Unpicklable],
) -> None:
    workers = StandingWorkers(items, 2)
    try:
        futures = [workers.submit(_values, [at, at + 1]) for at in range(0, 12, 2)]
        found = [future.result() for future in futures]
    finally:
        workers.close()
    assert [values for values, _, _ in found] == [[at, at + 1] for at in range(0, 12, 2)]
    assert os.getpid() not in {pid for _, pid, _ in found}
    assert {collecting for *_, collecting in found} == {False}
    assert gc.isenabled()  # as it was here


def test_positions_name_only_the_objects_the_workers_hold(items: list[_Unpicklable]) -> None:
    workers = StandingWorkers(items[:6], 2)
    try:
        assert workers.positions([items[5], items[0]]) == [5, 0]
        assert workers.positions([items[0], items[6]]) is None  # made after, or not given
        assert workers.positions([_Unpicklable(0)]) is None  # an equal object is not it
        assert workers.positions([]) == []
    finally:
        workers.close()


def test_bytes_come_back_whole_and_in_order_and_the_folder_goes_with_the_workers(
    items: list[_Unpicklable],
) -> None:
    workers = StandingWorkers(items, 2)
    folder = workers._folder
    try:
        pending = [workers.submit_bytes(_texts, [at, at + 1, at + 2]) for at in range(0, 12, 3)]
        empty = workers.submit_bytes(_texts, [])
        found = [part for task in pending for part in task.result()]
        assert empty.result() == []
        assert found == [str(value).encode() * value for value in range(12)]
        assert found[0] == b""
        assert list(folder.iterdir()) == []  # each file read once, then removed
    finally:
        workers.close()
    assert not folder.exists()


def test_a_task_s_error_comes_back_and_the_workers_go_on(items: list[_Unpicklable]) -> None:
    workers = StandingWorkers(items, 2)
    try:
        with pytest.raises(ValueError, match="item 4 is refused"):
            workers.submit_bytes(_refused, [4]).result()
        assert workers.submit_bytes(_texts, [2]).result() == [b"22"]
    finally:
        workers.close()


def test_a_worker_that_dies_breaks_the_pool_and_close_still_ends_it(
    items: list[_Unpicklable],
) -> None:
    workers = StandingWorkers(items, 2)
    try:
        with pytest.raises(BrokenProcessPool):
            workers.submit(_dies, [0]).result()
        with pytest.raises(BrokenProcessPool):
            workers.submit(_values, [0]).result()
    finally:
        workers.close()


def test_an_interrupt_is_left_to_this_process(items: list[_Unpicklable]) -> None:
    workers = StandingWorkers(items, 2)
    try:
        pids = {pid for _, pid, _ in (workers.submit(_values, [0]).result() for _ in range(8))}
        for pid in pids:
            os.kill(pid, signal.SIGINT)
        assert workers.submit(_values, [3]).result()[0] == [3]  # no worker died of it
    finally:
        workers.close()
