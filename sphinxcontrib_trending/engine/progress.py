"""Progress of a long map for people: a bar in a terminal, periodic lines in CI logs.

A CI log keeps every byte, so redrawing a bar there would fill it with
carriage returns; a terminal would scroll away under a line per item.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from sphinxcontrib_trending.engine.mapping import Progress

BAR_WIDTH = 30
LOG_EVERY_SECONDS = 10.0


def console_progress(
    label: str,
    stream: TextIO | None = None,
    every: float = LOG_EVERY_SECONDS,
    clock: Callable[[], float] = time.monotonic,
) -> Progress:
    """A ``progress(done, total)`` callback for :func:`~.map_ordered`.

    In a terminal it redraws one bar line; elsewhere it prints a line at the
    first item, then at most one per ``every`` seconds, and one at the end.
    """
    output = stream if stream is not None else sys.stderr
    if output.isatty():
        return _bar(label, output)
    return _lines(label, output, every, clock)


def _bar(label: str, output: TextIO) -> Progress:
    def draw(done: int, total: int) -> None:
        filled = BAR_WIDTH * done // max(total, 1)
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        output.write(f"\r{label} [{bar}] {done}/{total}")
        if done == total:
            output.write("\n")
        output.flush()

    return draw


def _lines(label: str, output: TextIO, every: float, clock: Callable[[], float]) -> Progress:
    last: list[float] = []

    def log(done: int, total: int) -> None:
        now = clock()
        if last and done != total and now - last[0] < every:
            return
        last[:] = [now]
        output.write(f"{label}: {done}/{total} ({100 * done // max(total, 1)}%)\n")
        output.flush()

    return log
