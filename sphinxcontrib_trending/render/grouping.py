"""Splitting rows into one table per combination (testbed x cores by default).

Every test dimension (testbed, NIC, driver, frame size, cores, test type)
is a field, so a page can hold one table per testbed x NIC x cores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.ingest.dimensions import DIMENSIONS, normalise_dimension

T = TypeVar("T")


def _dimension(name: str) -> Callable[[TestHistory], str | None]:
    return lambda history: history.dimensions.value(name)


GROUP_FIELDS: dict[str, Callable[[TestHistory], str | None]] = {
    **{name: _dimension(name) for name in DIMENSIONS},
    # A history made without dimension rules still knows its testbed and cores.
    "testbed": lambda history: history.dimensions.testbed or history.testbed,
    "cores": lambda history: history.dimensions.cores or history.thread_core,
    "suite": lambda history: history.suite,
    "metric": lambda history: history.metric,
}


class GroupByError(ValueError):
    """An unknown ``:group-by:`` field; the message lists the known ones."""


def parse_group_by(text: str) -> tuple[str, ...]:
    fields = tuple(normalise_dimension(part) for part in text.split(",") if part.strip())
    unknown = [field for field in fields if field not in GROUP_FIELDS]
    if unknown:
        raise GroupByError(
            f"unknown group-by field(s) {', '.join(unknown)}; known: {', '.join(GROUP_FIELDS)}"
        )
    return fields


def caption_for(fields: Sequence[str], values: Sequence[str | None]) -> str:
    parts = [
        f"{field.replace('_', ' ')} {value}" if value else f"no {field.replace('_', ' ')}"
        for field, value in zip(fields, values, strict=True)
    ]
    text = ", ".join(parts)
    return text[:1].upper() + text[1:]


def split(
    items: Iterable[T], fields: Sequence[str], history_of: Callable[[T], TestHistory]
) -> list[tuple[str, list[T]]]:
    """Groups of items under their caption, in caption order (missing values last).

    A field no item has a value for (generic data has no testbed or cores)
    is left out of the captions instead of naming the absence on every
    table; with no such field left there is one group without a caption.
    """
    listed = list(items)
    keyed = [
        (tuple(GROUP_FIELDS[field](history_of(item)) for field in fields), item) for item in listed
    ]
    present = [
        index for index in range(len(fields)) if any(key[index] is not None for key, _ in keyed)
    ]
    groups: dict[tuple[str | None, ...], list[T]] = {}
    for key, item in keyed:
        groups.setdefault(tuple(key[index] for index in present), []).append(item)
    ordered = sorted(groups, key=lambda key: tuple((value is None, value or "") for value in key))
    used = [fields[index] for index in present]
    return [(caption_for(used, key), groups[key]) for key in ordered]
