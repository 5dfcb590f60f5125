"""Reading the analysis cache's JSON documents, which come from the build folder.

Each document names its kind (``format``) and the settings it belongs to
(``scope``); anything else (a missing file, bad JSON, another kind or
scope, the wrong shape) reads as empty, and the caller computes afresh.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def cache_document(path: Path | None, kind: str, scope: str, key: str) -> dict[str, Any]:
    """The ``key`` mapping of a cache file of this kind and scope; empty if there is none."""
    if path is None:
        return {}
    try:
        document = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(document, dict) or document.get("format") != kind:
        return {}
    if document.get("scope") != scope or not isinstance(document.get(key), dict):
        return {}
    return document[key]
