"""CSV: one result per row, columns named in the header.

The columns and how rows become builds are shared with JSON Lines, in
:mod:`~sphinxcontrib_trending.ingest.tabular`.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator

from sphinxcontrib_trending.ingest.formats import InputFormat
from sphinxcontrib_trending.ingest.tabular import Row, RowError, column, table_reader


def csv_rows(lines: Iterable[str]) -> Iterator[Row | RowError]:
    reader = csv.DictReader(lines)
    if reader.fieldnames is None:
        return
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as error:  # one bad row (a field over the size limit) is skipped
            yield RowError(f"not CSV: {error}", reader.reader.line_num)
            continue
        fields = {
            column(key): value.strip()
            for key, value in record.items()
            if key is not None and isinstance(value, str) and value.strip()
        }
        yield Row(reader.line_num, fields)


FORMAT = InputFormat(
    name="csv",
    documents=re.compile(r"\.csv$", re.IGNORECASE),
    read=table_reader(csv_rows),
)
