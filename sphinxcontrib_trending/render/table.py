"""Tables as plain data, so Sphinx, the CLI and tests read the same rows."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    """One table row; the first cell is the test name, linked by ``link_key``."""

    cells: tuple[str, ...]
    link_key: str | None = None
    classes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    caption: str
    header: tuple[str, ...]
    rows: tuple[Row, ...]


def percent(change: float | None) -> str:
    """A relative change as a percentage; blank when the window had no value."""
    return "" if change is None else f"{change * 100:.2f}"
