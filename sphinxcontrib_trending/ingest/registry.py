"""The input formats ingest knows, by name: the one place a format is listed.

Everything that needs to know about formats (source resolution, the
loader, settings' validation, the command line's ``--format`` choices) asks
here, so adding a format is one module under
:mod:`~sphinxcontrib_trending.ingest.formats` and one entry below.

A format's module is imported the first time that format is asked for: the
names alone serve a ``SourceSpec``, conf.py's checks and ``--help``, and
``parquet`` brings pyarrow and fsspec with it.
"""

from __future__ import annotations

import importlib

from sphinxcontrib_trending.ingest.formats import InputFormat

_FORMATS: dict[str, str] = {
    "robot": "sphinxcontrib_trending.ingest.formats.robot_output",
    "csv": "sphinxcontrib_trending.ingest.formats.csv_table",
    "jsonl": "sphinxcontrib_trending.ingest.formats.json_lines",
    "csit-json": "sphinxcontrib_trending.ingest.formats.csit_json",
    "parquet": "sphinxcontrib_trending.ingest.formats.parquet",
    "asv": "sphinxcontrib_trending.ingest.formats.asv",
    "pytest-benchmark": "sphinxcontrib_trending.ingest.formats.pytest_benchmark",
    "google-benchmark": "sphinxcontrib_trending.ingest.formats.google_benchmark",
}
"""Each format's name and the module declaring it (as its ``FORMAT``), the default first."""

DEFAULT_FORMAT = "robot"


def format_names() -> tuple[str, ...]:
    """Every known format name, the default first."""
    return tuple(_FORMATS)


def input_format(name: str) -> InputFormat:
    """The format called ``name``; ``KeyError`` for an unknown one (checked by the options)."""
    format_: InputFormat = importlib.import_module(_FORMATS[name]).FORMAT
    return format_
