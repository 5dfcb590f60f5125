"""Where rows go in the store's folder tree, and what a path says about its rows.

The reference partitions its trending Parquet Hive-style by result type and
day: ``test_type=mrr/year=2024/month=3/day=7/<file>.parquet`` (numbers
without leading zeros).  We keep that tree, with the day of the *build*
(UTC) rather than the day the reference's ETL ran, so a window of days is a
choice of folders.  Files we write are named ``<input>-<content>.parquet``
(hashes of each): other rows always go to a new file, never over an old one,
so a reader or a crashed writer never meets half a file.  Names starting
with ``_`` or ``.`` (the manifest, downloads, temporary files) are not data,
as for pyarrow's own discovery.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from pathlib import PurePosixPath

from sphinxcontrib_trending.ingest.model import Build, TestResult

OUR_FILE = re.compile(r"^[0-9a-f]{16}-[0-9a-f]{32}\.parquet$")
"""Files this store writes; any other data file in the tree is foreign."""

_FAMILIES = (
    ("mrr", "mrr"),
    ("ndr", "ndrpdr"),
    ("pdr", "ndrpdr"),
    ("latency", "ndrpdr"),
    ("soak", "soak"),
    ("reconf", "reconf"),
    ("hoststack", "hoststack"),
)
_SAFE_VALUE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")

Partition = tuple[str, int, int, int]
"""(test_type, year, month, day)."""


def test_type(test: TestResult | None) -> str:
    """The reference's result type: as the data states it, else from the metrics.

    A value that could not be a folder name safely (``../x``, ``a=b``) is
    ``unknown``, like a test without either.
    """
    if test is None:
        return "unknown"
    stated = test.attribute("test_type")
    if stated is not None:
        return stated if _SAFE_VALUE.match(stated) and stated not in (".", "..") else "unknown"
    for measurement in test.measurements:
        for prefix, family in _FAMILIES:
            if measurement.metric.startswith(prefix):
                return family
    return "unknown"


def partition_of(build: Build, test: TestResult | None) -> Partition:
    day = build.time.date()
    return (test_type(test), day.year, day.month, day.day)


def partition_folder(partition: Partition) -> str:
    kind, year, month, day = partition
    return f"test_type={kind}/year={year}/month={month}/day={day}"


INPUT_PREFIX = 16
"""A file name starts with this many hex digits of its input's key: one input's files group."""


def file_name(input_key: str, content: str) -> str:
    """Named by input and content: new rows get a new name, the same rows the same one.

    So a file is never rewritten with other bytes, and ingesting the same
    inputs twice (on one worker or many) makes the same store, byte for byte.
    """
    return f"{input_key[:INPUT_PREFIX]}-{content[:32]}.parquet"


def _parts(relative: str) -> list[str]:
    """``relative``'s names, as :class:`~pathlib.PurePosixPath` gives them: split
    as text, for every file of a store's listing and manifest (thousands a read)."""
    return [part for part in relative.split("/") if part not in ("", ".")]


def is_data_file(relative: str) -> bool:
    """A ``.parquet`` file not hidden by a ``_`` or ``.`` name on its way down."""
    parts = _parts(relative)
    return (
        bool(parts)
        and parts[-1].endswith(".parquet")
        and not any(part.startswith(("_", ".")) for part in parts)
    )


def is_our_file(relative: str) -> bool:
    """A data file of ours at a plain relative path (a manifest may be planted)."""
    return (
        not relative.startswith("/")
        and is_data_file(relative)
        and bool(OUR_FILE.match(_parts(relative)[-1]))
    )


def partition_values(relative: str) -> dict[str, str]:
    """``{"test_type": "mrr", "year": "2024", ...}`` from a file's relative path."""
    values = {}
    for part in PurePosixPath(relative).parts[:-1]:
        key, equals, value = part.partition("=")
        if equals:
            values[key] = value
    return values


def in_days(values: dict[str, str], days: tuple[date, date] | None) -> bool:
    """Does a file's year/month/day partition fall in ``days`` (inclusive)?

    A file without the three keys (or with odd ones) cannot be ruled out.
    """
    if days is None:
        return True
    day = partition_day(values)
    return day is None or days[0] <= day <= days[1]


def partition_day(values: dict[str, str]) -> date | None:
    """The year/month/day partition as a date (None: missing or not a date)."""
    try:
        return date(int(values["year"]), int(values["month"]), int(values["day"]))
    except (KeyError, ValueError):
        return None


def in_test_types(values: dict[str, str], kinds: Iterable[str] | None) -> bool:
    return kinds is None or "test_type" not in values or values["test_type"] in set(kinds)
