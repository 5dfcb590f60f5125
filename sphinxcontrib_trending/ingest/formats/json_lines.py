"""JSON Lines: one result per line, an object with the CSV format's columns."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator

from sphinxcontrib_trending.ingest.formats import InputFormat
from sphinxcontrib_trending.ingest.tabular import Row, RowError, column, table_reader


def jsonl_rows(lines: Iterable[str]) -> Iterator[Row | RowError]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except RecursionError:
            yield RowError("not JSON: nested too deeply", number)
            continue
        except ValueError as error:
            yield RowError(f"not JSON: {error}", number)
            continue
        if not isinstance(record, dict):
            yield RowError("a JSON object is expected", number)
            continue
        yield Row(
            number, {column(key): value for key, value in record.items() if value not in (None, "")}
        )


FORMAT = InputFormat(
    name="jsonl",
    documents=re.compile(r"\.(jsonl|ndjson)$", re.IGNORECASE),
    read=table_reader(jsonl_rows),
)
