"""Building millions of long-lived objects without the cycle collector rescanning them.

A store read or a set of histories makes a few objects per run: at CSIT's
size, millions of tuples and frozen dataclasses that live until the process
ends and never form reference cycles.  Python's cycle collector runs every
few hundred allocations and, as the older generations fill, walks every
object allocated so far, so building them costs more per object the more
there are: half the time of reading a store of 900 inputs went to it.
While :func:`collector_paused` is active, allocation does not trigger it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic cycle collection inside; the previous setting afterwards.

    Reference counting still frees everything as usual: only cycles wait
    for the next collection, which runs as soon as the block is left.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
