"""A table as CSV text, for the download link next to every trending table.

Spreadsheets run a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and
some also after a tab or carriage return) as a formula, so a test name or
failure message from the data could run code on the reader's machine.  As
OWASP advises, such text cells get a leading single quote, and so does each
line of a cell that starts like one (a spreadsheet that splits a cell at its
line breaks would otherwise run the next line); numbers are written as
numbers, since a number cannot hold a formula.

Fields are quoted as RFC 4180 says: any field holding a comma, a quote or
a line break, a bare carriage return included.  Python's ``csv`` writer
leaves a lone ``\r`` unquoted when lines end in ``\n``, and a spreadsheet
then splits the row there.
"""

from __future__ import annotations

import math
import re

from sphinxcontrib_trending.render.table import RawValue, Table

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_FORMULA_AFTER_BREAK = re.compile(r"([\r\n])(?=[=+\-@\t\r])")


def csv_cell(value: RawValue) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format(value, ".15g") if math.isfinite(value) else ""
    # a dashboard has hundreds of thousands of cells, nearly none with a line break
    has_break = "\n" in value or "\r" in value
    lines_inert = _FORMULA_AFTER_BREAK.sub(r"\1'", value) if has_break else value
    return "'" + lines_inert if value.startswith(FORMULA_STARTS) else lines_inert


def table_csv(table: Table) -> str:
    """The raw header and values when the table has them, else the cells as shown."""
    raw = bool(table.raw_header)
    lines = [_line([csv_cell(name) for name in (table.raw_header if raw else table.header)])]
    for row in table.rows:
        values = row.raw if raw else row.cells
        lines.append(_line([csv_cell(value) for value in values]))
    return "".join(lines)


_QUOTED_WHEN_HELD = frozenset(',"\r\n')


def _line(fields: list[str]) -> str:
    if fields == [""]:  # a lone empty field, quoted: a blank line would be no row
        return '""\n'
    return ",".join(_field(text) for text in fields) + "\n"


def _field(text: str) -> str:
    if _QUOTED_WHEN_HELD.isdisjoint(text):
        return text
    return '"' + text.replace('"', '""') + '"'
