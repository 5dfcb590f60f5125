"""Parquet results stores as a source: ours, or the reference's trending dataset.

Each path of the source is a store (a local folder, or an fsspec URL such
as ``s3://bucket/csit/parquet/trending``), read whole through
:mod:`~sphinxcontrib_trending.ingest.store.dataset`; its rows come one test
or one file at a time, so the loader joins builds (``merges_builds``).
Its own source options ``days`` and ``metrics`` narrow what is read.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sphinxcontrib_trending.ingest.formats import InputFormat
from sphinxcontrib_trending.ingest.model import Build, Problem
from sphinxcontrib_trending.ingest.read_options import ReadOptions

if TYPE_CHECKING:
    from pathlib import Path


def read(
    location: str,
    options: ReadOptions,
    passed_messages: bool = True,
    decoded_dir: Path | None = None,
) -> tuple[list[Build], list[Problem], list[str]]:
    """The source's ``days`` and ``metrics`` become the read's partition filter and projection.

    The store's reader (pyarrow) is imported here, on the first read: the
    format's declaration also answers whether a source is a store, which
    every build asks before it decides to read anything.
    """
    from sphinxcontrib_trending.ingest.store.dataset import Query, read_store

    query = Query(
        recent_days=options.days, metrics=options.metrics, passed_messages=passed_messages
    )
    found = read_store(location, options, query, decoded_dir)
    return found.builds, found.problems, found.files_read


FORMAT = InputFormat(
    name="parquet",
    documents=re.compile(r"\.parquet$", re.IGNORECASE),
    read=None,
    own_options=frozenset({"days", "metrics"}),
    merges_builds=True,
    store=read,
)
