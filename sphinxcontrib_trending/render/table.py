"""Tables as plain data, so Sphinx, the CLI and tests read the same rows."""

from __future__ import annotations

from dataclasses import dataclass

from sphinxcontrib_trending.analysis.identity import SeriesRef

RawValue = str | int | float | None
"""A cell as the CSV download holds it: numbers unformatted, in the raw header's unit."""

NUMBER = "number"
"""A column of numbers or intervals: right-aligned, never broken inside a value."""
LABEL = "label"
"""A column of names (tests, jobs and builds, versions, times): left-aligned and,
like a number, never broken at its hyphens or spaces."""
TEXT = "text"
"""A column of words (results, verdicts, messages): left-aligned, wrapped as prose."""


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
    reasons: tuple[str, ...] = ()
    """Per cell, why it holds no value ("" for a cell that has one); empty when
    every cell has its value.  The page shows a cell with a reason as an
    abbreviation whose title is the reason."""
    links: tuple[str | None, ...] = ()
    """Per cell, the address it links to (a CI build's or a DUT version's page,
    see :mod:`~sphinxcontrib_trending.conf.links`), None for plain text; empty
    when no cell links anywhere.  The first cell links to its graph instead."""


@dataclass(frozen=True)
class Table:
    """``raw_header`` names the columns of the rows' ``raw`` values, with their units.

    ``kinds`` gives each column's :data:`NUMBER`, :data:`LABEL` or
    :data:`TEXT`, which sets how its cells align and wrap; left empty, the
    first column is a label and the others are numbers.
    """

    caption: str
    header: tuple[str, ...]
    rows: tuple[Row, ...]
    raw_header: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kinds and len(self.kinds) != len(self.header):
            raise ValueError(f"{len(self.kinds)} column kinds for {len(self.header)} columns")

    def column_kinds(self) -> tuple[str, ...]:
        if self.kinds:
            return self.kinds
        return (LABEL, *(NUMBER,) * (len(self.header) - 1))


def raw_percent(change: float | None) -> float | None:
    """A relative change in percent at full precision, for the CSV download."""
    return None if change is None else change * 100
