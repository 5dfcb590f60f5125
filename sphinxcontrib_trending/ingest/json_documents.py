"""JSON documents we write and read back ourselves, through orjson.

The large ones are read and written whole while a build waits: a CSIT-sized
store's manifest (1,840 inputs, 1.5 MB, read and written by every ingest),
the groupings of its site (about 11 MB) and its saved searches' index.  The
standard library's module took three to eight times as long over them.
Numbers are the same doubles both ways (the shortest text that reads back
as the same double).  What orjson refuses is done by the standard library
instead: a text with a lone surrogate (a test name, or a file name that is
not UTF-8, may carry one), or, read back, the ``NaN`` an earlier release
wrote.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def json_value(data: bytes) -> Any:
    """The JSON value ``data`` holds; ``ValueError`` if it holds none."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)  # NaN, a lone surrogate, or not JSON at all (raises)


def json_bytes(value: Any, *, indented: bool = False) -> bytes:
    """``value`` as JSON, of the types the standard library's ``json`` writes;
    ``indented`` for a document people read (two spaces a level)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indented else None)
    except orjson.JSONEncodeError:  # a lone surrogate, which the standard encoder escapes
        return json.dumps(value, indent=2 if indented else None).encode()
