"""``read_ahead``: a function over items on a thread per core, results in order, few at a time.

Reading a store spends its time in pyarrow and hashlib, which release the
GIL, so threads read the next files while the caller turns the last one
into the model.  Only so many results wait at once (two per thread), so a
read of thousands of files never holds them all.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

AHEAD_PER_THREAD = 2


def read_ahead(function: Callable[[Item], Result], items: Iterable[Item]) -> Iterator[Result]:
    """``function(item)`` of each item in order, computed on a thread per core.

    ``function`` should return its failures rather than raise them: an
    exception ends the iteration.
    """
    threads = os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=threads) as pool:
        pending: deque[Future[Result]] = deque()
        for item in items:
            if len(pending) >= AHEAD_PER_THREAD * threads:
                yield pending.popleft().result()
            pending.append(pool.submit(function, item))
        while pending:
            yield pending.popleft().result()
