"""One JSON results document (pytest-benchmark, Google Benchmark): decoded, or why not.

Both tools write one JSON object per run; a truncated file, another
tool's JSON or a list instead of an object must each be one clear problem
naming the document, never an exception.
"""

from __future__ import annotations

import json
from typing import Any

from sphinxcontrib_trending.ingest.formats import Reading
from sphinxcontrib_trending.ingest.model import Problem


def load_object(reading: Reading, tool: str, keys: tuple[str, ...]) -> dict[str, Any] | Problem:
    """The document's object, or the problem: not JSON, or no object with ``keys``."""
    try:
        data = json.load(reading.stream)
    except RecursionError:
        return Problem(reading.where, "not JSON: nested too deeply", "parse")
    except (ValueError, UnicodeDecodeError) as error:
        return Problem(reading.where, f"not JSON: {error}", "parse")
    if not isinstance(data, dict) or not all(key in data for key in keys):
        wanted = ", ".join(keys)
        return Problem(reading.where, f"not a {tool} file: no object with {wanted}", "parse")
    return data


def number(value: Any) -> float | None:
    """A JSON number as a float; None for anything else (null, text, true)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
