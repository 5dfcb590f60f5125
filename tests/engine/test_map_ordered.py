"""The engine's contract, whatever runs it: results in input order, progress per item."""

from __future__ import annotations

from sphinxcontrib_trending.engine import map_ordered


def square(number: int) -> int:
    return number * number


def test_results_come_back_in_input_order_with_progress() -> None:
    seen: list[tuple[int, int]] = []
    assert map_ordered(square, iter([3, 1, 2]), progress=lambda *p: seen.append(p)) == [9, 1, 4]
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_no_items_is_no_work() -> None:
    assert map_ordered(square, [], workers=2) == []
