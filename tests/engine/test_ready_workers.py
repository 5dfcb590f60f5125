"""Workers forked from a helper that set them up ahead: results in order, set up once."""

from __future__ import annotations

import os
import time

import pytest

from sphinxcontrib_trending.engine import TaskFailed
from sphinxcontrib_trending.engine.mapping import EngineError
from sphinxcontrib_trending.engine.ready_workers import ReadyWorkers

_prepared_in: list[int] = []
"""The process each ``_prepare`` ran in, as the process that looks at it inherited it."""


def _prepare() -> None:
    _prepared_in.append(os.getpid())


class _Unpicklable:
    """What the workers share: no pipe can carry it, so they must have inherited it."""

    def __init__(self, values: list[int]) -> None:
        self.values = values

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("not to be pickled")


def _scaled(shared: _Unpicklable, item: int) -> tuple[int, list[int], int, int]:
    """The shared value at ``item`` and where the task ran: its setup, its process, its parent."""
    return shared.values[item] * 10, list(_prepared_in), os.getpid(), os.getppid()


def test_the_workers_inherit_the_shared_data_and_one_setup_from_their_parent() -> None:
    shared = _Unpicklable(list(range(30)))
    with ReadyWorkers(_prepare, shared, 2) as ready:
        helper = ready._process.pid
        found = list(ready.results(_scaled, list(range(30))))
    assert [value for value, *_ in found] == [number * 10 for number in range(30)]
    # set up once, in the helper, before it forked the workers: never here
    assert {tuple(setup) for _, setup, _, _ in found} == {(helper,)}
    assert _prepared_in == []
    workers = {pid for _, _, pid, _ in found}
    assert not workers & {helper, os.getpid()}
    assert {parent for *_, parent in found} == {helper}


def test_results_come_in_order_with_progress() -> None:
    steps: list[tuple[int, int]] = []
    with ReadyWorkers(_prepare, _Unpicklable([3, 1, 2]), 2) as ready:
        found = ready.results(_scaled, [2, 0, 1], lambda *step: steps.append(step))
        assert [value for value, *_ in found] == [20, 30, 10]
    assert steps == [(1, 3), (2, 3), (3, 3)]


def _whole(_shared: object, item: str) -> int:
    return int(item)


def test_a_failing_task_names_its_item() -> None:
    with (
        ReadyWorkers(_prepare, None, 2) as ready,
        pytest.raises(TaskFailed, match=r"'x'.*ValueError.*invalid literal"),
    ):
        list(ready.results(_whole, ["1", "2", "x", "4"]))
    assert not ready._process.is_alive()


def _slow(_shared: object, item: int) -> int:
    time.sleep(0.05)
    return item


def test_leaving_early_ends_the_helper_and_its_workers() -> None:
    with ReadyWorkers(_prepare, None, 2) as ready:
        results = ready.results(_slow, list(range(200)))
        assert next(results) == 0
        helper = ready._process
        started = time.monotonic()
    assert time.monotonic() - started < 5.0  # not after the 199 others
    assert not helper.is_alive()
    assert helper.pid is not None and _group_ends(helper.pid)  # nor any of its workers


def _group_ends(group: int) -> bool:
    """Whether every process of ``group`` ends within five seconds (ended ones are reaped by
    whoever adopted them, a moment later)."""
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False


def test_a_helper_never_given_work_is_ended() -> None:
    with ReadyWorkers(_prepare, None, 2) as ready:
        helper = ready._process
    assert not helper.is_alive()


def _ends_its_parent(_shared: object, item: int) -> int:
    if item == 3:
        os.kill(os.getppid(), 9)
        time.sleep(5.0)
    return item


def test_a_helper_that_dies_ends_the_map_with_an_error() -> None:
    with ReadyWorkers(_prepare, None, 2) as ready, pytest.raises(EngineError, match="ended"):
        list(ready.results(_ends_its_parent, list(range(6))))


def _fails() -> None:
    raise ImportError("no compiled loops here")


def test_a_helper_whose_setup_fails_ends_the_map_with_an_error() -> None:
    """A setup that raises ends the helper before its work arrives: an error here, not a
    hang, whether the work still fits in the pipe or no longer can be sent."""
    for items in ([1, 2], list(range(100_000))):
        with ReadyWorkers(_fails, None, 2) as ready:
            ready._process.join()
            with pytest.raises(EngineError, match="ended early"):
                list(ready.results(_whole, items))


def _slow_prepare() -> None:
    time.sleep(1.0)


def test_a_slow_setup_is_told_once_while_it_runs() -> None:
    """An install's first grouping compiles its loops for seconds: the build says so."""
    told: list[float] = []
    with ReadyWorkers(_slow_prepare, _Unpicklable([5, 6]), 2) as ready:
        found = ready.results(
            _scaled, [1, 0], slow_setup=lambda: told.append(time.monotonic()), patience=0.1
        )
        first = next(found)
        arrived = time.monotonic()
        assert [first[0], *(value for value, *_ in found)] == [60, 50]
    assert len(told) == 1
    assert told[0] < arrived  # while the setup ran, not after it


def test_a_slow_setup_is_told_whatever_the_size_of_the_work() -> None:
    """Work that fills the pipe is sent once the helper is set up: a send would block."""
    told: list[str] = []
    items = list(range(20_000))
    with ReadyWorkers(_slow_prepare, None, 2) as ready:
        found = ready.results(_whole, items, slow_setup=lambda: told.append("slow"), patience=0.1)
        assert list(found) == items
    assert told == ["slow"]


def test_a_quick_setup_is_not_told() -> None:
    told: list[str] = []
    with ReadyWorkers(_prepare, _Unpicklable([5, 6]), 2) as ready:
        found = ready.results(_scaled, [1, 0], slow_setup=lambda: told.append("slow"), patience=5)
        assert [value for value, *_ in found] == [60, 50]
    assert told == []
