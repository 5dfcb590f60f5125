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


def test_until_ends_the_map_at_the_first_result_in_order_it_is_true_of() -> None:
    started: list[int] = []

    def noted(number: int) -> int:
        started.append(number)
        return square(number)

    assert map_ordered(noted, [1, 2, 3, 4], until=lambda result: result >= 4) == [1, 4]
    assert started == [1, 2]
