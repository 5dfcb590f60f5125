"""A table as CSV text, for the download link next to every trending table.

Spreadsheets run a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and
some also after a tab or carriage return) as a formula, so a test name or
failure message from the data could run code on the reader's machine.  As
OWASP advises, such text cells get a leading single quote; numbers are
written as numbers, since a number cannot hold a formula.
"""

from __future__ import annotations

import csv
import io
import math

from sphinxcontrib_trending.render.table import RawValue, Table

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: RawValue) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format(value, ".15g") if math.isfinite(value) else ""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def table_csv(table: Table) -> str:
    """The raw header and values when the table has them, else the cells as shown."""
    raw = bool(table.raw_header)
    output = io.StringIO()
    writer = csv.writer(output, lineterminator="\n")
    writer.writerow([csv_cell(name) for name in (table.raw_header if raw else table.header)])
    for row in table.rows:
        values = row.raw if raw else row.cells
        writer.writerow([csv_cell(value) for value in values])
    return output.getvalue()
