"""CSV: one result per row, columns named in the header (see :mod:`..tabular`)."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator

from sphinxcontrib_trending.ingest.formats import InputFormat, Reading
from sphinxcontrib_trending.ingest.model import Build, Problem
from sphinxcontrib_trending.ingest.replay import Replay
from sphinxcontrib_trending.ingest.tabular import Row, column, read_table, text_stream


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


def read(reading: Reading) -> tuple[list[Build], list[Problem]]:
    return read_table(csv_rows(reading.stream), reading)


FORMAT = InputFormat(
    name="csv",
    summary="CSV, one result per row",
    documents=re.compile(r"\.csv$", re.IGNORECASE),
    read=read,
)
