"""Workers forked once, that keep what this process held then, for many rounds of work.

:func:`~.forked.map_forked` forks its workers for one map.  A build's graph
pages are many rounds of small tasks on data this process holds already,
and forking workers from a process of a gigabyte or more took a tenth of a
second each time (its page tables copied, then torn down as the workers
end): more than a page's share of the work.  :class:`StandingWorkers` forks
them once, holding a sequence of items; a task names items by their
positions in it, so none is pickled on its way.  Items made after the fork
are not there: :meth:`StandingWorkers.positions` says so, and the caller
does the work itself or forks new workers.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import shutil
import signal
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any, Generic, TypeVar

from sphinxcontrib_trending.engine.collector import collector_paused
from sphinxcontrib_trending.engine.forked import terminated_by_default

Held = TypeVar("Held")
Argument = TypeVar("Argument")

_held: Sequence[Any] = ()
"""What the workers forked last hold (each worker keeps its own copy of this name)."""


class StandingWorkers(Generic[Held]):
    """``workers`` processes forked now, holding ``held``, until :meth:`close`.

    They are forked with the cycle collector off and keep it off: a
    collection would walk everything they inherit, and copy each page of
    it into the worker (see :func:`~.forked.forked_results`).
    """

    def __init__(self, held: Sequence[Held], workers: int) -> None:
        global _held
        self.held = list(held)  # kept alive here, so no other object takes an id in positions
        self._positions = {id(item): position for position, item in enumerate(self.held)}
        _held = self.held
        self._folder = Path(tempfile.mkdtemp(prefix="trending-workers-"))
        self._numbers = itertools.count()
        context = multiprocessing.get_context("fork")
        self._executor = ProcessPoolExecutor(workers, context, initializer=_worker_setup)
        try:
            with collector_paused():  # a forking executor forks every worker at its first task
                self._executor.submit(_nothing).result()
        except BaseException:  # no fork (out of memory), or a worker that died at once
            self.close()
            raise

    def positions(self, items: Sequence[Held]) -> list[int] | None:
        """Where each of ``items`` (the objects themselves) is in what the workers hold;
        None if one of them is not there."""
        found = [self._positions.get(id(item)) for item in items]
        if None in found:
            return None
        return found  # type: ignore[return-value]

    def submit_bytes(
        self, task: Callable[[Sequence[Held], Argument], list[bytes]], argument: Argument
    ) -> PendingBytes:
        """``task(held, argument)``, a list of bytes, on a worker; ``task`` must be a
        module-level function.  The bytes come back through a file rather than the
        result's pipe; :class:`~concurrent.futures.process.BrokenProcessPool` if a
        worker died before (else from :meth:`PendingBytes.result`).

        A graph page's figures are hundreds of kilobytes a task: the pipe took
        them 64 KB at a time, each a wait for this process's interpreter lock
        while its main thread worked, and the worker stood blocked meanwhile
        (a third of its time).
        """
        path = self._folder / str(next(self._numbers))
        return PendingBytes(self._executor.submit(_spilled, task, argument, str(path)), path)

    def close(self) -> None:
        """End the workers, dropping the tasks they have not started."""
        self._executor.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(self._folder, ignore_errors=True)


class PendingBytes:
    """The list of bytes a task of :meth:`StandingWorkers.submit_bytes` makes."""

    def __init__(self, future: Future[list[int]], path: Path) -> None:
        self._future = future
        self._path = path

    def result(self) -> list[bytes]:
        """Waits for the task; raises what it raised, or
        :class:`~concurrent.futures.process.BrokenProcessPool` if its worker died."""
        lengths = self._future.result()
        data = self._path.read_bytes()
        self._path.unlink()
        ends = list(itertools.accumulate(lengths))
        if (ends[-1] if ends else 0) != len(data):
            raise OSError(f"{self._path}: a worker's results were cut short")
        return [data[end - length : end] for length, end in zip(lengths, ends, strict=True)]


def _worker_setup() -> None:
    """A worker ends when told to (see :func:`~.forked.terminated_by_default`), and leaves
    an interrupt to this process: a Ctrl-C reaches the whole foreground group, and each
    worker printed its own traceback before this process ended them in order."""
    terminated_by_default()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _nothing() -> None:
    return None


def _spilled(
    task: Callable[[Sequence[Any], Any], list[bytes]], argument: Any, path: str
) -> list[int]:
    """``task``'s bytes written to ``path`` one after another; their lengths."""
    parts = task(_held, argument)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with open(descriptor, "wb") as file:
        file.write(b"".join(parts))
    return [len(part) for part in parts]
