"""read_ahead: results in the items' order, with only a few computed ahead of the caller."""

from __future__ import annotations

import os
import threading
import time

from sphinxcontrib_trending.engine.read_ahead import read_ahead


def test_results_come_in_order_however_long_each_takes() -> None:
    def slow_first(item: int) -> int:
        time.sleep(0.02 if item % 3 == 0 else 0.0)
        return item * item

    assert list(read_ahead(slow_first, range(40))) == [item * item for item in range(40)]
    assert list(read_ahead(slow_first, [])) == []


def test_only_a_few_items_are_started_ahead_of_the_caller() -> None:
    started: list[int] = []
    lock = threading.Lock()

    def record(item: int) -> int:
        with lock:
            started.append(item)
        return item

    results = read_ahead(record, range(100))
    assert next(results) == 0
    time.sleep(0.1)  # let the threads take all they are given
    ahead = 2 * (os.cpu_count() or 1)  # two per thread, as the module promises
    assert len(started) <= ahead + 1
    assert list(results) == list(range(1, 100)) and len(started) == 100
