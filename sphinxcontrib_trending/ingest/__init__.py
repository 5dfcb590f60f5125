"""Sources -> parsed, normalised builds.  Never imports Sphinx.

The public surface is three functions and the model::

    from sphinxcontrib_trending.ingest import load, resolve, fingerprint

:func:`load` reads a :class:`~sphinxcontrib_trending.ingest.spec.SourceSpec`
into a :class:`~sphinxcontrib_trending.ingest.model.Dataset`; :func:`resolve`
and :func:`fingerprint` are cheap and let callers decide whether to load at
all.

The three functions come from :mod:`~sphinxcontrib_trending.ingest.loader`,
imported on first use: it brings pyarrow, fsspec and the results store, which
a module that only needs the model or a ``SourceSpec`` (the analysis, conf.py's
checks, ``sphinx-trending --help``) must not pay for.
"""

from __future__ import annotations

from typing import Any

from sphinxcontrib_trending.ingest.model import Build, Dataset, Measurement, Problem, TestResult
from sphinxcontrib_trending.ingest.options import SpecError
from sphinxcontrib_trending.ingest.spec import SourceSpec

_FROM_LOADER = frozenset({"PARSER_VERSION", "fingerprint", "load", "resolve"})

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
    """The loader's public names, the loader imported on the first use of one."""
    if name in _FROM_LOADER:
        from sphinxcontrib_trending.ingest import loader

        return getattr(loader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
