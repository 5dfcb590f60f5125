"""A command's lines on standard error, each naming the command.

Messages quote test names, paths and URLs from the data: :func:`visible`
keeps a control character in them from rewriting the terminal.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from sphinxcontrib_trending.reports.terminal import visible


@dataclass(frozen=True)
class Printer:
    """``sphinx-trending COMMAND: ...`` lines; a warning says so after the name."""

    command: str

    def error(self, message: str) -> None:
        print(visible(f"sphinx-trending {self.command}: {message}"), file=sys.stderr)

    def warning(self, message: str) -> None:
        self.error(f"warning: {message}")
