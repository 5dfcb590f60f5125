"""Classifications as JSON and back, checked: the per-series cache keeps them on disk.

The cache folder is untrusted (anything may have written it), so decoding
checks every field's type and range and raises ``TypeError``/``ValueError``
for an entry that is not a classification this code could have written.
"""

from __future__ import annotations

import math
from typing import Any

from sphinxcontrib_trending.analysis.classify import Classification, Group

_GROUP_FLOATS = ("avg", "stdev")
_GROUP_OPTIONAL = ("bits_saved", "confidence", "serial_correlation")


def classification_to_json(result: Classification) -> dict[str, Any]:
    return {
        "groups": [{**group.__dict__, "outliers": list(group.outliers)} for group in result.groups],
        "bits": result.bits,
        "missing": list(result.missing),
        "run_count": result.run_count,
        "direction": result.direction,
        "search": result.search,
        "unit": result.unit,
        "outlier_runs": result.outlier_runs,
    }


def classification_from_json(entry: Any) -> Classification:
    if not isinstance(entry, dict):
        raise TypeError("classification is not an object")
    groups = [_group(group) for group in _typed(entry["groups"], list)]
    return Classification(
        groups=groups,
        bits=_number(entry["bits"]),
        missing=tuple(_integer(index) for index in _typed(entry["missing"], list)),
        run_count=_integer(entry["run_count"]),
        direction=_choice(entry["direction"], ("higher", "lower")),  # type: ignore[arg-type]
        search=_choice(entry["search"], ("exact", "jumpavg")),  # type: ignore[arg-type]
        unit=None if entry["unit"] is None else _number(entry["unit"]),
        outlier_runs=_integer(entry["outlier_runs"]),
    )


def _group(entry: Any) -> Group:
    fields = _typed(entry, dict)
    return Group(
        start=_integer(fields["start"]),
        stop=_integer(fields["stop"]),
        size=_integer(fields["size"]),
        comment=_choice(fields["comment"], ("normal", "regression", "progression")),  # type: ignore[arg-type]
        **{name: _number(fields[name]) for name in _GROUP_FLOATS},
        **{
            name: None if fields[name] is None else _number(fields[name])
            for name in _GROUP_OPTIONAL
        },
        outliers=tuple(_integer(run) for run in _typed(fields["outliers"], list)),
    )


def _typed(value: Any, kind: type) -> Any:
    if not isinstance(value, kind):
        raise TypeError(f"expected {kind.__name__}, found {type(value).__name__}")
    return value


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError(f"expected a count, found {value!r}")
    return value


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"expected a number, found {type(value).__name__}")
    if not math.isfinite(value) or abs(value) > 1e100:
        raise ValueError(f"implausible number {value!r}")
    return float(value)


def _choice(value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"expected one of {choices}, found {value!r}")
    return value
