"""Every warning this extension emits carries ``type="trending"`` and a subtype.

Users silence a whole class with ``suppress_warnings = ["trending.parse"]``;
the subtypes are listed here so the docs and the code cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from sphinx.util import logging

SUBTYPES = (
    "config",
    "source",
    "parse",
    "data",
    "duplicate",
    "cache",
    "filter",
    "option",
    "link",
    "math",
)

logger = logging.getLogger("sphinxcontrib_trending")


def warn(message: str, subtype: str, location: Any = None) -> None:
    if subtype not in SUBTYPES:
        raise ValueError(f"unknown warning subtype {subtype!r}")
    logger.warning(message, type="trending", subtype=subtype, location=location)
