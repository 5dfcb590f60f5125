"""Sources -> parsed, normalised builds.  Never imports Sphinx.

The public surface is three functions and the model::

    from sphinxcontrib_trending.ingest import load, resolve, fingerprint

:func:`load` reads a :class:`~sphinxcontrib_trending.ingest.spec.SourceSpec`
into a :class:`~sphinxcontrib_trending.ingest.model.Dataset`; :func:`resolve`
and :func:`fingerprint` are cheap and let callers decide whether to load at
all.

The three functions are imported on first use: :func:`load` from
:mod:`~sphinxcontrib_trending.ingest.loader`, which brings pyarrow, fsspec and
the results store, which a module that only needs the model or a
``SourceSpec`` (the analysis, conf.py's checks, ``sphinx-trending --help``)
must not pay for; :func:`resolve` and :func:`fingerprint` from
:mod:`~sphinxcontrib_trending.ingest.freshness`, which a build with nothing
to read needs alone.
"""

from __future__ import annotations

import importlib
from typing import Any

from sphinxcontrib_trending.ingest.model import Build, Dataset, Measurement, Problem, TestResult
from sphinxcontrib_trending.ingest.options import SpecError
from sphinxcontrib_trending.ingest.spec import SourceSpec

_LAZY = {
    "PARSER_VERSION": "sphinxcontrib_trending.ingest.freshness",
    "fingerprint": "sphinxcontrib_trending.ingest.freshness",
    "load": "sphinxcontrib_trending.ingest.loader",
    "resolve": "sphinxcontrib_trending.ingest.freshness",
}
"""Each public function's module, imported on the first use of one of its names."""

__all__ = [
    "PARSER_VERSION",
    "Build",
    "Dataset",
    "Measurement",
    "Problem",
    "SourceSpec",
    "SpecError",
    "TestResult",
    "fingerprint",
    "load",
    "resolve",
]


def __getattr__(name: str) -> Any:
    """The public functions, each module imported on the first use of one of its names."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
