"""Files written on a thread of their own while the build goes on.

A build that adds a run to every series of a CSIT-sized site writes some
160 MB of graph figures: in an HTML build each graph's data file while its
page is read, elsewhere each page's figures beside its doctree
(:mod:`.figure_files`).  Those writes wait on the disk, the more
so when other processes fill it too, and the build's own work need not
wait with them: the operating system's write calls let go of the
interpreter, so a thread writes while the build reads, draws and renders.

The writes are made in the order they are handed over, one at a time, and
whoever needs them done waits for them (:func:`wait`): a page's figures
when its read ends (a parallel reader's process ends with its pages),
every data file before the build ends.
A write that fails makes that wait raise its error, as the write itself
would have.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from typing import Any

PENDING = 2048
"""Writes handed over and not yet made before the next hand-over waits: at
CSIT's size a graph page's data files, some 35 MB, so a page is written
while the next is resolved, and memory does not grow with a slow disk."""

_Write = tuple[Callable[..., object], tuple[Any, ...]]


class _Writer:
    def __init__(self) -> None:
        self.pid = os.getpid()
        self.pending: queue.Queue[_Write] = queue.Queue(PENDING)
        self.error: BaseException | None = None
        threading.Thread(target=self._run, name="trending-writes", daemon=True).start()

    def _run(self) -> None:
        while True:
            write, arguments = self.pending.get()
            try:
                if self.error is None:
                    write(*arguments)
            except BaseException as error:  # handed to whoever waits
                self.error = error
            finally:
                self.pending.task_done()


_writer: _Writer | None = None


def submit(write: Callable[..., object], *arguments: Any) -> None:
    """Call ``write(*arguments)`` on the writing thread, after every write handed over before."""
    global _writer
    if _writer is None or _writer.pid != os.getpid():  # a forked reader writes on its own
        _writer = _Writer()
    _writer.pending.put((write, arguments))


def wait() -> None:
    """Return when every write handed over is made; raise the first one's error, if any."""
    writer = _writer
    if writer is None or writer.pid != os.getpid():
        return
    writer.pending.join()
    error, writer.error = writer.error, None
    if error is not None:
        raise error
