"""Progress shown as a bar in a terminal and as periodic lines in a log."""

from __future__ import annotations

import io

from sphinxcontrib_trending.engine.progress import console_progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_one_redrawn_bar() -> None:
    screen = Terminal()
    progress = console_progress("parsing", screen)
    for done in range(1, 5):
        progress(done, 4)
    text = screen.getvalue()
    assert text.count("\r") == 4
    assert text.count("\n") == 1
    assert text.endswith("\rparsing [" + "#" * 30 + "] 4/4\n")


def test_a_log_gets_a_line_per_interval_and_the_last_one() -> None:
    log = io.StringIO()
    now = [0.0]
    progress = console_progress("parsing", log, every=10.0, clock=lambda: now[0])
    for done in range(1, 101):
        now[0] = done * 0.5  # two items per second: a line every twenty items
        progress(done, 100)
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue()
    assert lines[0] == "parsing: 1/100 (1%)"
    assert lines[1] == "parsing: 21/100 (21%)"
    assert lines[-1] == "parsing: 100/100 (100%)"
    assert len(lines) == 6
