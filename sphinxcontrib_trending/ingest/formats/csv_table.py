"""CSV: one result per row, columns named in the header.

The columns and how rows become builds are shared with JSON Lines, in
:mod:`~sphinxcontrib_trending.ingest.tabular`.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator

from sphinxcontrib_trending.ingest.formats import InputFormat
from sphinxcontrib_trending.ingest.replay import Replay
from sphinxcontrib_trending.ingest.tabular import Row, column, table_reader, text_stream


def csv_rows(stream: Replay) -> Iterator[Row]:
    reader = csv.DictReader(text_stream(stream))
    if reader.fieldnames is None:
        return
    for record in reader:
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
