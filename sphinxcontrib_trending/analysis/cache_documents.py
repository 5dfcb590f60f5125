"""Reading the analysis cache's JSON documents, which come from the build folder.

Each document names its kind (``format``) and the settings it belongs to
(``scope``); anything else (a missing file, bad JSON, another kind or
scope, the wrong shape) reads as empty, and the caller computes afresh.

They are read and written with orjson: the groupings of a CSIT-sized site
are a document of about 11 MB and its saved searches' index another 3.6 MB,
read whole and written whole by the process that schedules the grouping
while its workers wait, and the standard library's module took three to
eight times as long over them.  Its numbers are the same doubles both ways
(the shortest text that reads back as the same double).  What orjson
refuses is done by the standard library instead: a text with a lone
surrogate (a test name may carry one), or, read back, the ``NaN`` an
earlier release wrote.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson


def cache_document(path: Path | None, kind: str, scope: str, key: str) -> dict[str, Any]:
    """The ``key`` mapping of a cache file of this kind and scope; empty if there is none."""
    if path is None:
        return {}
    try:
        document = json_value(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(document, dict) or document.get("format") != kind:
        return {}
    if document.get("scope") != scope or not isinstance(document.get(key), dict):
        return {}
    return document[key]


def json_value(data: bytes) -> Any:
    """The JSON value ``data`` holds; ``ValueError`` if it holds none."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)  # NaN, a lone surrogate, or not JSON at all (raises)


def json_bytes(value: Any) -> bytes:
    """``value`` as JSON, of the types the standard library's ``json`` writes."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:  # a lone surrogate, which the standard encoder escapes
        return json.dumps(value).encode()
