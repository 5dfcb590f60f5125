"""Degradation checks of a target against a baseline, in Perun's vocabulary.

Where the trend analysis segments a whole history, these checks compare two
sets of samples per location (test or resource id) and grade the change::

    from sphinxcontrib_trending.analysis.degradation import compare

    reports = compare({"search": [156.0, 157.0]}, {"search": [60678.0]}, method="aat")
    reports[0].result  # 'Degradation'
"""

from __future__ import annotations

from .compare import compare
from .registry import METHODS, Method, resolve_method
from .report import (
    DEGRADATION,
    DIRECTIONS,
    MAYBE_DEGRADATION,
    MAYBE_OPTIMIZATION,
    MISSING_BASELINE,
    MISSING_TARGET,
    NO_CHANGE,
    OPTIMIZATION,
    UNKNOWN,
    VERDICTS,
    Report,
)

__all__ = [
    "DEGRADATION",
    "DIRECTIONS",
    "MAYBE_DEGRADATION",
    "MAYBE_OPTIMIZATION",
    "METHODS",
    "MISSING_BASELINE",
    "MISSING_TARGET",
    "NO_CHANGE",
    "OPTIMIZATION",
    "UNKNOWN",
    "VERDICTS",
    "Method",
    "Report",
    "compare",
    "resolve_method",
]
