"""Forked workers whose parent set them up ahead, while this process went on.

Each worker of a build's grouping loaded the exact search's compiled loops
itself (numba and its cache: about 0.6 s of a core per worker) after this
process had finished its own part before the workers (asking the cache
which series it has, and where each saved search lies).  :class:`ReadyWorkers`
forks one process as soon as work for workers is certain; it sets up what
every worker needs (``prepare``) on the second core while this process goes
on, then forks the workers from itself when the work arrives: they inherit
what it set up, so it is done once, and no longer after this process's part.

What the workers work on is inherited too (``shared``, as the helper was
forked), so only the items are sent to the helper, pickled: they should be
small, such as numbers into ``shared``.  A worker pickles its result itself
and the helper forwards the bytes, so no result is decoded on the way.

The helper says when it is set up.  A setup that takes long is worth
telling the user about: the grouping's is loading compiled loops (under
a second), but on the first use of an install numba compiles them
(about 18 s on two cores), and a build would sit silent meanwhile.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import pickle
import signal
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from types import TracebackType
from typing import Any, Generic, TypeVar

from sphinxcontrib_trending.engine.forked import RemoteFailure, forked_results
from sphinxcontrib_trending.engine.mapping import EngineError, Progress, TaskFailed

Shared = TypeVar("Shared")
Item = TypeVar("Item")
Result = TypeVar("Result")

_RESULT = b"+"
_FAILURE = b"!"
_READY = b"="

SLOW_SETUP = 3.0
"""Seconds the helper's setup may still take once the results are asked for
before ``slow_setup`` is told (see :meth:`ReadyWorkers.results`)."""


def can_fork() -> bool:
    """Whether this platform forks (where it does not, work runs in-process)."""
    return "fork" in multiprocessing.get_all_start_methods()


class ReadyWorkers(Generic[Shared]):
    """A helper process, forked now, that runs ``prepare()`` and waits for :meth:`results`.

    Use it as a context manager: leaving the block ends the helper and its
    workers (if :meth:`results` was not asked, or not to its end).
    """

    def __init__(self, prepare: Callable[[], object], shared: Shared, workers: int) -> None:
        context = multiprocessing.get_context("fork")
        mine, theirs = context.Pipe()
        self._connection = mine
        self._finished = False
        self._process = context.Process(
            target=_serve, args=(prepare, shared, workers, theirs, mine), daemon=False
        )
        self._process.start()
        theirs.close()  # the helper's end: its end of file is how its death shows here
        with contextlib.suppress(OSError):  # its own group, that :meth:`close` ends whole
            os.setpgid(self._process.pid, self._process.pid)  # (it sets it too: either wins)

    def results(
        self,
        task: Callable[[Shared, Item], Result],
        items: Sequence[Item],
        progress: Progress | None = None,
        slow_setup: Callable[[], None] | None = None,
        patience: float | None = None,
    ) -> Iterator[Result]:
        """``task(shared, item)`` of each item on the helper's workers; results in order.

        ``task`` must be a module-level function.  ``slow_setup()`` is called
        once if the helper is still setting up ``patience`` seconds (by
        default :data:`SLOW_SETUP`) after this was asked.  Raises
        :class:`TaskFailed` naming the first item whose task raised,
        :class:`EngineError` if the helper ended before the last result.
        Asked once per helper.
        """
        # pickled while the helper sets up, sent once it has: the work can fill the pipe,
        # and a send would block until the helper read it, with nothing told meanwhile
        work = ForkingPickler.dumps((task, list(items)))
        self._await_setup(slow_setup, patience)
        try:
            self._connection.send_bytes(work)
        except OSError as error:  # it ended before it was given the work
            raise EngineError(f"the workers' parent process ended early: {error}") from None
        for done, item in enumerate(items, start=1):
            try:
                message = self._connection.recv_bytes()
            except (EOFError, OSError) as error:
                raise EngineError(f"the workers' parent process ended early: {error}") from None
            body = memoryview(message)[1:]
            if message[:1] == _FAILURE:
                reason = bytes(body).decode()
                raise TaskFailed(item, RemoteFailure(reason), reason=reason)
            if progress is not None:
                progress(done, len(items))
            yield pickle.loads(body)
        self._finished = True

    def _await_setup(self, slow_setup: Callable[[], None] | None, patience: float | None) -> None:
        """Take the helper's word that it is set up, telling ``slow_setup`` if it is slow."""
        wait = SLOW_SETUP if patience is None else patience
        try:
            if slow_setup is not None and not self._connection.poll(wait):
                slow_setup()
            message = self._connection.recv_bytes()
        except (EOFError, OSError) as error:
            raise EngineError(f"the workers' parent process ended early: {error}") from None
        if message != _READY:
            raise EngineError(f"the workers' parent process sent {message[:1]!r} before its setup")

    def close(self) -> None:
        """End the helper: at once, with its workers, unless its work is done."""
        process = self._process
        if process.pid is not None and not self._finished:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGTERM)
        self._connection.close()
        process.join()

    def __enter__(self) -> ReadyWorkers[Shared]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _serve(
    prepare: Callable[[], object],
    shared: Any,
    workers: int,
    connection: Connection,
    parents_end: Connection,
) -> None:
    """The helper: set up, take the work, fork the workers, forward their results."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # ended with its workers, whatever
    with contextlib.suppress(OSError):  # the parent handles
        os.setpgid(0, 0)
    parents_end.close()
    gc.disable()  # a short life, over what it inherited: see :func:`.forked_results`
    global _shared
    _shared = shared
    prepare()
    with contextlib.suppress(OSError):  # a parent that needed no workers has closed its end
        connection.send_bytes(_READY)
    try:
        task, items = connection.recv()
    except EOFError:  # the parent needed no workers after all
        return
    values = forked_results(_Pickled(task), items, workers)
    with contextlib.closing(values):
        try:
            for value in values:
                connection.send_bytes(_RESULT + value)
        except TaskFailed as failure:
            connection.send_bytes(_FAILURE + str(failure.error).encode())


_shared: Any = None
"""What the helper was given to share, as its workers inherit it."""


class _Pickled:
    """``task(shared, item)``, pickled by the worker: the helper forwards it undecoded."""

    def __init__(self, task: Callable[[Any, Any], Any]) -> None:
        self.task = task

    def __call__(self, item: Any) -> bytes:
        return pickle.dumps(self.task(_shared, item), protocol=pickle.HIGHEST_PROTOCOL)
