"""Sources -> parsed, normalised builds.  Never imports Sphinx.

The public surface is three functions and the model::

    from sphinxcontrib_trending.ingest import load, resolve, fingerprint

:func:`load` reads a :class:`~sphinxcontrib_trending.ingest.spec.SourceSpec`
into a :class:`~sphinxcontrib_trending.ingest.model.Dataset`; :func:`resolve`
and :func:`fingerprint` are cheap and let callers decide whether to load at
all.
"""

from sphinxcontrib_trending.ingest.loader import PARSER_VERSION, fingerprint, load, resolve
from sphinxcontrib_trending.ingest.model import Build, Dataset, Measurement, Problem, TestResult
from sphinxcontrib_trending.ingest.options import SpecError
from sphinxcontrib_trending.ingest.spec import SourceSpec

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
