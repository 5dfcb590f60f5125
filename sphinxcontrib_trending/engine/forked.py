"""``map_forked``: ``map_ordered`` on processes forked from this one, for data already here.

A Dask ``LocalCluster`` starts fresh interpreters that import everything
again: about 6 s on a busy 2-core machine, more than classifying a thousand
series takes.  A process that already holds the data (a Sphinx build
before its parallel readers fork, the CLI after loading its sources) can
instead fork workers that inherit it, start in milliseconds, and only send
results back: the items themselves are inherited too, and a worker is told
only which one to take, so no item is pickled through a pipe.  Where
``fork`` does not exist the work runs in-process.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from sphinxcontrib_trending.engine.collector import collector_paused
from sphinxcontrib_trending.engine.mapping import Progress, TaskFailed, map_ordered

Item = TypeVar("Item")
Result = TypeVar("Result")


class RemoteFailure(Exception):
    """A task's error as text: the original may not survive pickling back."""


def _guarded(task: Callable[[Any], Any], item: Any) -> tuple[bool, Any]:
    """The result, or the error as text (the original may not survive pickling back)."""
    try:
        return True, task(item)
    except Exception as error:
        return False, f"{type(error).__name__}: {error}"


def map_forked(
    task: Callable[[Item], Result],
    items: Sequence[Item],
    workers: int,
    progress: Progress | None = None,
    until: Callable[[Result], bool] | None = None,
) -> list[Result]:
    """``[task(item) for item in items]`` on ``workers`` forked processes, in order.

    ``until`` as for :func:`~.mapping.map_ordered`: the map ends at the first
    result in order it is true of, and the workers are stopped there.
    Raises :class:`TaskFailed` naming the first item whose task raised.
    """
    if workers < 2 or len(items) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return map_ordered(task, items, progress=progress, until=until)
    results: list[Result] = []
    with contextlib.closing(forked_results(task, items, workers, progress)) as values:
        for value in values:
            results.append(value)
            if until is not None and until(value):
                break  # closing the generator terminates the workers
    return results


def forked_results(
    task: Callable[[Item], Result],
    items: Sequence[Item],
    workers: int,
    progress: Progress | None = None,
) -> Iterator[Result]:
    """:func:`map_forked`'s results one by one, in order, as the workers finish them.

    The caller works on each result while the workers compute the next ones:
    a grouping files each batch in its cache as it comes, instead of every
    batch after the last (the workers then wait for nothing, and the process
    forking them had nothing to do meanwhile).  Leaving the loop early (or
    closing the generator) stops the workers.  Without ``fork``, or with
    fewer than two workers or items, the tasks run here, one as each result
    is asked for.
    """
    if workers < 2 or len(items) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        yield from _serial_results(task, items, progress)
        return
    global _inherited
    report = progress or (lambda _done, _total: None)
    context = multiprocessing.get_context("fork")
    outer = _inherited
    _inherited = items
    # the workers are forked with the cycle collector off, and keep it off: walking
    # what they inherit would cost seconds and copy every page of it into each
    # worker (what they make themselves forms no cycles worth collecting before
    # they end).  Freezing it instead, as before, meant asking gc how much was
    # frozen already (a freeze made before is its maker's to undo): a walk of
    # every frozen object, 0.14 s at 2,000 series of 124 runs and more with each
    try:
        with (
            collector_paused(),
            context.Pool(min(workers, len(items)), initializer=terminated_by_default) as pool,
        ):
            outcomes = pool.imap(_Call(task), range(len(items)))
            for done, (item, (ok, value)) in enumerate(zip(items, outcomes, strict=True), start=1):
                if not ok:
                    raise TaskFailed(item, RemoteFailure(value), reason=value)
                report(done, len(items))
                yield value
    finally:
        _inherited = outer


def _serial_results(
    task: Callable[[Item], Result], items: Sequence[Item], progress: Progress | None
) -> Iterator[Result]:
    """The tasks here, one by one: :func:`~.mapping.map_ordered` of one item at a time."""
    for done, item in enumerate(items, start=1):
        value = map_ordered(task, (item,))[0]
        if progress is not None:
            progress(done, len(items))
        yield value


def terminated_by_default() -> None:
    """A worker ends at once when the pool terminates it, whatever this process set.

    The pool ends its workers with SIGTERM.  A worker forked from a process
    that handles it (the CLI raises SystemExit on it, see
    :func:`~sphinxcontrib_trending.cli.exit_on_terminate`) inherited that
    handler: the exit then ran inside the worker's wait for its next task,
    and now and then left it waiting on a queue lock a terminated sibling
    held, and the pool, joining it, hung for good.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


_inherited: Sequence[Any] = ()
"""The items of the :func:`map_forked` call under way, as its workers inherit them."""


class _Call:
    """A picklable ``partial(_guarded, task)`` taking an inherited item by its index."""

    def __init__(self, task: Callable[[Any], Any]) -> None:
        self.task = task

    def __call__(self, index: int) -> tuple[bool, Any]:
        return _guarded(self.task, _inherited[index])
