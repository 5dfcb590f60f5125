"""Workers forked once hold what this process held then, for task after task."""

from __future__ import annotations

import gc
import json
import os
import signal
import tempfile
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool

import pytest

from sphinxcontrib_trending.engine import standing_workers
from sphinxcontrib_trending.engine.standing_workers import PendingBytes, StandingWorkers


class _Unpicklable:
    """A held item no pipe can carry: a worker that has it inherited it."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("not to be pickled")


def _values(held: Sequence[_Unpicklable], positions: list[int]) -> list[bytes]:
    """The held values at ``positions``, where the task ran, and whether it collects cycles."""
    values = [held[at].value for at in positions]
    return [json.dumps([values, os.getpid(), gc.isenabled()]).encode()]


def _found(pending: PendingBytes) -> tuple[list[int], int, bool]:
    values, pid, collecting = json.loads(pending.result()[0])
    return values, pid, collecting


def _texts(held: Sequence[_Unpicklable], positions: list[int]) -> list[bytes]:
    return [str(held[at].value).encode() * held[at].value for at in positions]


def _refused(held: Sequence[_Unpicklable], positions: list[int]) -> list[bytes]:
    raise ValueError(f"item {positions[0]} is refused")


def _dies(held: Sequence[_Unpicklable], positions: list[int]) -> list[bytes]:
    os._exit(3)


@pytest.fixture
def items() -> list[_Unpicklable]:
    return [_Unpicklable(value) for value in range(12)]


def test_tasks_name_held_items_by_position_and_run_on_the_forked_workers(
    items: list[_Unpicklable],
) -> None:
    workers = StandingWorkers(items, 2)
    try:
        pending = [workers.submit_bytes(_values, [at, at + 1]) for at in range(0, 12, 2)]
        found = [_found(task) for task in pending]
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
            workers.submit_bytes(_dies, [0]).result()
        with pytest.raises(BrokenProcessPool):
            workers.submit_bytes(_values, [0]).result()
    finally:
        workers.close()


def test_an_interrupt_is_left_to_this_process(items: list[_Unpicklable]) -> None:
    workers = StandingWorkers(items, 2)
    try:
        pids = {pid for _, pid, _ in (_found(workers.submit_bytes(_values, [0])) for _ in range(8))}
        for pid in pids:
            os.kill(pid, signal.SIGINT)
        assert _found(workers.submit_bytes(_values, [3]))[0] == [3]  # no worker died of it
    finally:
        workers.close()


def _dies_at_once() -> None:
    os._exit(3)


def test_workers_that_die_as_they_start_are_refused_and_leave_no_folder(
    items: list[_Unpicklable], monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []
    mkdtemp = tempfile.mkdtemp

    def noted(**arguments: str) -> str:
        made.append(mkdtemp(**arguments))
        return made[-1]

    monkeypatch.setattr(tempfile, "mkdtemp", noted)
    monkeypatch.setattr(standing_workers, "_nothing", _dies_at_once)  # the workers' first task
    with pytest.raises(BrokenProcessPool):
        StandingWorkers(items, 2)
    assert len(made) == 1
    assert not os.path.exists(made[0])
