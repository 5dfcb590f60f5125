"""A trace's hover text for one point, as Plotly fills its ``hovertemplate``.

Tests read what a reader sees on hover, not where the figure keeps each
piece (``customdata``, ``meta`` or the point's own ``y``); the browser test
checks that Plotly fills a template the same way.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

_FIELD = re.compile(r"%\{(\w+)(?:\[(\d+)\])?(?:\|([^}]*))?(?::([^}]*))?\}")


def hover_text(trace: dict[str, Any], point: int) -> str:
    """The hover of ``trace``'s point ``point``, lines joined by ``<br>``, without ``<extra>``."""

    def filled(field: re.Match[str]) -> str:
        name, index, date_format, number_format = field.groups()
        if name == "meta":
            value = trace["meta"][int(index)]
        else:
            value = trace[name][point]
            if index is not None:
                value = value[int(index)]
        if date_format:
            return datetime.strptime(value, "%Y-%m-%d %H:%M:%S").strftime(date_format)
        return format(value, number_format) if number_format else str(value)

    return _FIELD.sub(filled, trace["hovertemplate"]).removesuffix("<extra></extra>")


def hover_lines(trace: dict[str, Any], point: int) -> list[str]:
    return hover_text(trace, point).split("<br>")
