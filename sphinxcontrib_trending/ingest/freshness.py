"""``resolve`` and ``fingerprint``: what a source is now, without reading it.

Every build asks each source whether it changed before it decides to load
anything, and most builds of a site find nothing changed.  So the answer
comes from names, sizes, times and what servers last said: none of the
loader's machinery (pyarrow, the HTTP client, the parsers) is imported to
give it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from sphinxcontrib_trending.ingest.downloaded import is_url, validators
from sphinxcontrib_trending.ingest.options import compile_options
from sphinxcontrib_trending.ingest.registry import input_format
from sphinxcontrib_trending.ingest.sources import resolve_entries
from sphinxcontrib_trending.ingest.spec import SourceSpec
from sphinxcontrib_trending.ingest.store.listing import location_state

PARSER_VERSION = "10"
"""Bump whenever the same input would parse differently: it invalidates stored parses."""


def resolve(spec: SourceSpec) -> list[str]:
    """The concrete inputs (absolute paths, URLs) the spec matches now, sorted.

    Raises :class:`~sphinxcontrib_trending.ingest.options.SpecError` for an
    unusable spec, like :func:`~sphinxcontrib_trending.ingest.loader.load`.
    """
    compile_options(spec)
    return resolve_entries(spec)[0]


def fingerprint(spec: SourceSpec, cache_dir: Path | None = None) -> str:
    """A cheap hash that changes when load() could return something different.

    It covers the resolved inputs (so a new file matching a glob counts), the
    size and modification time of local files, the validators last seen for
    URLs (no network access: a URL changes the fingerprint once a load has
    fetched the new version) and the parser version; for a ``parquet``
    source, the listing of each store (names, sizes, times or ETags: one
    listing request for a remote store).  Raises
    :class:`~sphinxcontrib_trending.ingest.options.SpecError` for an
    unusable spec, like :func:`~sphinxcontrib_trending.ingest.loader.load`.
    """
    options = compile_options(spec)
    state: list[object] = [PARSER_VERSION, options.identity()]
    if input_format(options.format).store is not None:
        state.extend(location_state(location) for location in spec.paths)
        return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()
    for entry in resolve(spec):
        if is_url(entry):
            known = validators(cache_dir / "downloads", entry) if cache_dir is not None else None
            state.append([entry, known])
            continue
        try:
            info = os.stat(entry)
        except OSError:
            state.append([entry, None])
            continue
        state.append([entry, info.st_size, info.st_mtime_ns])
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()
