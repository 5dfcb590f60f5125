"""Tables as plain data, so Sphinx, the CLI and tests read the same rows."""

from __future__ import annotations

from dataclasses import dataclass

from sphinxcontrib_trending.analysis.identity import SeriesRef

RawValue = str | int | float | None
"""A cell as the CSV download holds it: numbers unformatted, in the raw header's unit."""


@dataclass(frozen=True)
class Row:
    """One table row; the first cell is the test name, linked by ``link_key``.

    ``raw`` holds the cells unformatted for the CSV download (for example a
    rate in pps where the page shows Mpps with two decimals); left empty, the
    download repeats the shown cells.
    """

    cells: tuple[str, ...]
    link_key: SeriesRef | None = None
    classes: tuple[str, ...] = ()
    raw: tuple[RawValue, ...] = ()


@dataclass(frozen=True)
class Table:
    """``raw_header`` names the columns of the rows' ``raw`` values, with their units."""

    caption: str
    header: tuple[str, ...]
    rows: tuple[Row, ...]
    raw_header: tuple[str, ...] = ()


def raw_percent(change: float | None) -> float | None:
    """A relative change in percent at full precision, for the CSV download."""
    return None if change is None else change * 100
