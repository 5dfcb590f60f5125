"""Every warning this extension emits carries ``type="trending"`` and a subtype.

Users silence a whole class with ``suppress_warnings = ["trending.parse"]``;
the subtypes and what each means are declared here once, and the
configuration page lists them from :data:`SUBTYPES`, so the docs and the code
cannot drift apart.
"""

from __future__ import annotations

from typing import Any, Literal

from sphinx.util import logging

WarningSubtype = Literal[
    "config", "source", "parse", "data", "duplicate", "cache", "filter", "option", "link", "math"
]

SUBTYPES: dict[WarningSubtype, str] = {
    "config": "a bad configuration value: an unknown key, a value of the wrong type, "
    "or a source that matches no data",
    "source": "an input that could not be read or downloaded "
    "(a cached copy is used when there is one)",
    "parse": "a malformed archive, XML file or record "
    "(the message names the file and line; the rest is still read)",
    "data": "data that cannot be trended as asked (a value that is not a number, no matching test)",
    "duplicate": "the same job build archived twice (one is kept)",
    "cache": "a corrupt or foreign file of the results store (its input is parsed again), "
    "or a cache folder that cannot be written (the build goes on without it)",
    "filter": "a malformed ``:filter:`` expression",
    "option": "a bad directive option "
    "(unknown source, unknown group-by field, bad regular expression)",
    "link": "a test whose graph anchor is claimed by two pages",
    "math": "TeX that cannot be converted to MathML (it is shown as code)",
}
"""Each subtype with what it reports, in the order the docs list them."""

logger = logging.getLogger("sphinxcontrib_trending")


def warn(message: str, subtype: WarningSubtype, location: Any = None) -> None:
    if subtype not in SUBTYPES:
        raise ValueError(f"unknown warning subtype {subtype!r}")
    logger.warning(message, type="trending", subtype=subtype, location=location)
