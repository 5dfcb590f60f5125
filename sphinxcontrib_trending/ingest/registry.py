"""The input formats ingest knows, by name: the one place a format is listed.

Everything that needs to know about formats (source resolution, the
loader, settings' validation, the command line's ``--format`` choices) asks
here, so adding a format is one module under
:mod:`~sphinxcontrib_trending.ingest.formats` and one entry below.
"""

from __future__ import annotations

from sphinxcontrib_trending.ingest.formats import (
    InputFormat,
    asv,
    csit_json,
    csv_table,
    google_benchmark,
    json_lines,
    parquet,
    pytest_benchmark,
    robot_output,
)

_FORMATS: dict[str, InputFormat] = {
    module.FORMAT.name: module.FORMAT
    for module in (
        robot_output,
        csv_table,
        json_lines,
        csit_json,
        parquet,
        asv,
        pytest_benchmark,
        google_benchmark,
    )
}

DEFAULT_FORMAT = robot_output.FORMAT.name


def format_names() -> tuple[str, ...]:
    """Every known format name, the default first."""
    return tuple(_FORMATS)


def input_format(name: str) -> InputFormat:
    """The format called ``name``; ``KeyError`` for an unknown one (checked by ReadOptions)."""
    return _FORMATS[name]
