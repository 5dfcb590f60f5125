"""What a built site publishes: every file but Sphinx's hidden ones (``.doctrees``,
``.buildinfo``), for the benchmarks that weigh or compare sites and the tests
that compare a rebuilt site with a cold one; and what a build wrote."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from sphinxcontrib_trending.ingest.store.listing import local_entries, local_files


def published_files(outdir: str | os.PathLike[str]) -> Iterator[Path]:
    for name, _ in local_entries(os.fspath(outdir), hidden=(".",)):
        yield Path(outdir, name)


def published(outdir: str | os.PathLike[str]) -> dict[str, bytes]:
    """Every published file's bytes, by its path in the site."""
    return {
        path.relative_to(outdir).as_posix(): path.read_bytes() for path in published_files(outdir)
    }


def written_since(folder: str | os.PathLike[str], since_ns: int) -> dict[str, int]:
    """The bytes of every file under ``folder`` written since ``since_ns`` (a
    ``time.time_ns()``), by its path relative to ``folder``: what a build left
    written, hidden files and caches included (a file written and then removed
    is not counted), listed as the store's files are."""
    return {
        name: info.st_size
        for name, info in local_files(os.fspath(folder))
        if info.st_mtime_ns >= since_ns
    }
