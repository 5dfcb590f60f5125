"""map_ordered in-process and on a local cluster: same results, in input order."""

from __future__ import annotations

import gc
import os
import signal
import threading
import time
from pathlib import Path
from typing import NoReturn

import pytest

from sphinxcontrib_trending.cli import exit_on_terminate
from sphinxcontrib_trending.engine import TaskFailed, map_ordered
from sphinxcontrib_trending.engine.forked import forked_results, map_forked
from sphinxcontrib_trending.ingest import SourceSpec
from sphinxcontrib_trending.ingest.tasks import ParseJob, parse_file
from tests.engine.tasks import fail_on_weekly

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rf7"


def parse_jobs() -> list[ParseJob]:
    files = sorted(str(path) for path in FIXTURES.glob("*/*.xml*"))
    spec = SourceSpec(paths=tuple(files))
    return [ParseJob(path, spec) for path in files]


def test_serial_keeps_input_order_and_reports_progress() -> None:
    seen: list[tuple[int, int]] = []
    assert map_ordered(str.upper, ["b", "a", "c"], progress=lambda *step: seen.append(step)) == [
        "B",
        "A",
        "C",
    ]
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_serial_failure_names_the_item() -> None:
    with pytest.raises(TaskFailed, match=r"task failed on 'x': ValueError") as raised:
        map_ordered(int, ["1", "x", "2"])
    assert raised.value.item == "x"


@pytest.mark.parametrize(
    ("options", "message"),
    [({"workers": 0}, "at least 1"), ({"workers": 1, "scheduler": "tcp://x:1"}, "not both")],
)
def test_bad_engine_choices_are_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        map_ordered(str, ["a"], **options)  # type: ignore[arg-type]


def test_one_and_two_local_workers_parse_exactly_as_in_process() -> None:
    jobs = parse_jobs()
    assert len(jobs) >= 8
    serial = map_ordered(parse_file, jobs)
    progress: list[tuple[int, int]] = []
    one = map_ordered(parse_file, jobs, workers=1)
    two = map_ordered(parse_file, jobs, workers=2, progress=lambda *step: progress.append(step))
    assert [len(parsed.builds) for parsed in serial] == [1] * len(jobs)
    assert one == serial
    assert two == serial
    assert sorted(progress) == [(done, len(jobs)) for done in range(1, len(jobs) + 1)]


def test_a_failing_task_on_a_local_cluster_names_its_input() -> None:
    jobs = parse_jobs()
    with pytest.raises(TaskFailed, match=r"task failed on input .*weekly.*this input is refused"):
        map_ordered(fail_on_weekly, jobs, workers=1)


def test_forked_workers_keep_order_and_name_a_failing_item() -> None:
    items = [str(number) for number in range(50)]
    assert map_forked(int, items, 2) == list(range(50))
    with pytest.raises(TaskFailed, match=r"task failed on 'x': ValueError: invalid literal"):
        map_forked(int, [*items, "x", "7"], 2)


class _Unpicklable:
    """An item no pipe can carry: forked workers must take it from what they inherit."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.lock = threading.Lock()

    def __reduce__(self) -> NoReturn:
        raise AssertionError("an item was pickled to be sent to a worker")


def _number_and_pid(item: _Unpicklable) -> tuple[int, int]:
    return item.number, os.getpid()


def test_forked_workers_take_their_items_from_what_they_inherit() -> None:
    found = map_forked(_number_and_pid, [_Unpicklable(number) for number in range(40)], 2)
    assert [number for number, _ in found] == list(range(40))
    assert os.getpid() not in {pid for _, pid in found}


def test_forked_workers_leave_a_freeze_made_before_them_in_place() -> None:
    """A Sphinx build freezes its loaded data until it ends; a grouping must not thaw it."""
    gc.unfreeze()  # a known start: nothing frozen
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert map_forked(int, ["1", "2", "3"], 2) == [1, 2, 3]
        assert gc.get_freeze_count() >= frozen > 0
    finally:
        gc.unfreeze()
    assert map_forked(int, ["1", "2", "3"], 2) == [1, 2, 3]
    assert gc.get_freeze_count() == 0  # its own freeze it undoes


def _sigterm_disposition(_item: int) -> object:
    return signal.getsignal(signal.SIGTERM)


def test_forked_workers_end_on_sigterm_whatever_the_parent_handles() -> None:
    """The pool ends its workers with SIGTERM: one that inherited the CLI's handler
    (SystemExit) could be left waiting on a lock, and the pool joining it hung."""
    with exit_on_terminate():
        assert callable(signal.getsignal(signal.SIGTERM))
        found = map_forked(_sigterm_disposition, list(range(6)), 2)
    assert found == [signal.SIG_DFL] * 6


def _waits_for(marker: Path) -> bool:
    """Whether ``marker`` appeared within ten seconds."""
    deadline = time.monotonic() + 10.0
    while not marker.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.parametrize("workers", [1, 2])
def test_forked_results_come_while_later_items_are_still_worked_on(
    tmp_path: Path, workers: int
) -> None:
    """The caller has the first result before the last item's task ends: a grouping
    files each batch while the workers group the next.  The last task waits for a
    mark the caller makes on the first result; a map that returned only once every
    task had ended would leave it waiting."""
    marker = tmp_path / "first result seen"
    items = [tmp_path / "never made", marker]
    results = forked_results(_exists_or_waits, items, workers)
    assert next(results) is False
    marker.touch()
    assert next(results) is True
    assert next(results, None) is None


def _exists_or_waits(path: Path) -> bool:
    return path.name != "never made" and _waits_for(path)


def test_closing_forked_results_early_stops_the_workers(tmp_path: Path) -> None:
    """Leaving the results unread ends the pool at once: it does not run on, nor
    wait for the items still queued."""
    items = [str(number) for number in range(200)]
    results = forked_results(int, items, 2)
    assert next(results) == 0
    started = time.monotonic()
    results.close()
    assert time.monotonic() - started < 5.0
    assert map_forked(int, items, 2, until=lambda value: value == 3) == [0, 1, 2, 3]
