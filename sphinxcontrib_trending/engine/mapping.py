"""``map_ordered``: one function of one item over many items, here or on a Dask cluster.

Parsing an archive and classifying a series are independent per item, so the
only thing the callers need from a cluster is "run this on each, give me the
results in order".  Keeping that behind one function means a build on a
laptop (in-process), a CI runner (a local cluster of worker processes) and a
site fed from a Kubernetes or Slurm cluster (an existing scheduler) run the
same code.  Dask is imported only when a cluster is asked for, so a serial
build pays nothing for it.

Failure modes are made explicit rather than left to Dask's defaults: an
exception in a task names the item it failed on, a worker that dies is
replaced and its tasks rescheduled by Dask (up to its ``allowed-failures``),
and a scheduler that disappears ends the map with :class:`EngineError`
within ``lost_after`` seconds instead of a hang.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")
Progress = Callable[[int, int], None]

LOST_AFTER = 30.0
"""Seconds without a working connection to the scheduler before giving up."""
_POLL = 0.05
_RECOMPUTING = ("lost", "pending")


class EngineError(RuntimeError):
    """The map could not complete: the cluster went away or could not be reached."""


class TaskFailed(EngineError):
    """A task raised; ``item`` is the input it raised on, ``error`` what it raised.

    ``reason`` replaces the text of ``error`` when that error happened in
    another process and only its text came back.
    """

    def __init__(self, item: object, error: BaseException, reason: str | None = None) -> None:
        reason = reason or f"{type(error).__name__}: {error}"
        super().__init__(f"task failed on {describe(item)}: {reason}")
        self.item = item
        self.error = error


def describe(item: object, limit: int = 200) -> str:
    """A short printable name of an item for messages."""
    text = repr(item)
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def map_ordered(
    task: Callable[[Item], Result],
    items: Iterable[Item],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
    until: Callable[[Result], bool] | None = None,
) -> list[Result]:
    """``[task(item) for item in items]``, possibly on a Dask cluster.

    Neither ``workers`` nor ``scheduler``: in this process, one by one.
    ``workers=N``: a local cluster of N worker processes with one thread
    each, started and stopped here.  ``scheduler="tcp://HOST:PORT"``: the
    existing cluster behind that scheduler.  ``task`` must be a module-level
    function (workers import it by name) and items and results picklable.
    ``progress(done, total)`` is called after every finished item.

    ``until(result)``, asked of the results in input order, ends the map at
    the first it is true of: the results up to that one come back, the
    items after it are never started, and on a cluster the tasks not yet
    finished are cancelled (a folder of 300,000 files passing a cap at the
    tenth is not parsed whole on workers).

    Raises:
        TaskFailed: a task raised (the first failure; the rest is cancelled).
        EngineError: the cluster could not be reached or went away.
        ValueError: both ``workers`` and ``scheduler``, or ``workers < 1``.
    """
    work = list(items)
    if workers is not None and scheduler is not None:
        raise ValueError("give workers or scheduler, not both")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    report = progress or (lambda _done, _total: None)
    if workers is None and scheduler is None:
        return _serial(task, work, report, until)
    if not work:
        return []
    with _client(workers, scheduler) as client:
        return _on_cluster(client, task, work, report, until)


def _serial(
    task: Callable[[Item], Result],
    work: list[Item],
    report: Progress,
    until: Callable[[Result], bool] | None = None,
) -> list[Result]:
    results = []
    for done, item in enumerate(work, start=1):
        try:
            result = task(item)
        except Exception as error:
            raise TaskFailed(item, error) from error
        results.append(result)
        report(done, len(work))
        if until is not None and until(result):
            break
    return results


@contextmanager
def _client(workers: int | None, scheduler: str | None) -> Iterator[Any]:
    from distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=LOST_AFTER, set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise EngineError(f"cannot reach the Dask scheduler {scheduler}: {error}") from None
        with client:
            yield client
        return
    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.CRITICAL,
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        yield client


def _on_cluster(
    client: Any,
    task: Callable[[Item], Result],
    work: list[Item],
    report: Progress,
    until: Callable[[Result], bool] | None = None,
) -> list[Result]:
    from distributed import as_completed

    futures = client.map(task, work, pure=False)
    index = {future.key: number for number, future in enumerate(futures)}
    # with_results: the client fetches each result in the background as soon as
    # its task ends, instead of one blocking round trip per result here
    arrivals = as_completed(futures, loop=client.loop, with_results=True, raise_errors=False)
    results: list[Any] = [None] * len(work)
    arrived = [False] * len(work)
    done = 0
    ordered = 0  # results asked of ``until``: every one before is in
    stop = len(work)
    lost_since: float | None = None
    try:
        while ordered < stop:
            finished = arrivals.next_batch(block=False)
            if not finished:
                lost_since = _watch(client, lost_since)
                time.sleep(_POLL)
                continue
            for future, result in finished:
                number = index[future.key]
                if number >= stop:  # after the result that ended the map
                    continue
                if future.status in _RECOMPUTING:
                    arrivals.add(future)  # its worker died: Dask computes it again
                    continue
                results[number] = _outcome(future, result, work[number])
                arrived[number] = True
                done += 1
                report(done, len(work))
            while ordered < stop and arrived[ordered]:
                if until is not None and until(results[ordered]):
                    stop = ordered + 1  # the rest are cancelled below
                ordered += 1
    finally:
        client.cancel([future for future in futures if not future.done()], force=True)
    return results[:stop]


def _outcome(future: Any, result: Any, item: object) -> Any:
    if future.status == "error":
        raise TaskFailed(item, result if isinstance(result, BaseException) else future.exception())
    if future.status != "finished":
        raise EngineError(
            f"the Dask scheduler dropped the task for {describe(item)} ({future.status}): "
            "the cluster went away or was shut down"
        )
    return result


def _watch(client: Any, lost_since: float | None) -> float | None:
    """When the scheduler connection has been down for ``LOST_AFTER`` s, raise."""
    if client.status == "running":
        return None
    now = time.monotonic()
    if lost_since is None:
        return now
    if now - lost_since > LOST_AFTER or client.status in ("closed", "closing"):
        raise EngineError(f"lost the Dask scheduler (client {client.status})")
    return lost_since
