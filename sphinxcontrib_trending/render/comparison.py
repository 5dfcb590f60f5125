"""Two periods side by side as a table, one row per test, worst change first."""

from __future__ import annotations

from collections.abc import Sequence

from sphinxcontrib_trending.analysis.comparison import ComparisonRow, Period, SideStats
from sphinxcontrib_trending.analysis.degradation.registry import verdict_words
from sphinxcontrib_trending.display import DisplayUnit, display_unit, percent
from sphinxcontrib_trending.render.degradation import ROW_CLASSES
from sphinxcontrib_trending.render.table import (
    LABEL,
    NUMBER,
    TEXT,
    RawValue,
    Row,
    Table,
    raw_percent,
)

SEVERITY = tuple(ROW_CLASSES)
"""Verdicts that colour a row, the first listed winning when rules disagree."""


def _side(side: SideStats | None, unit: DisplayUnit) -> tuple[str, str, str]:
    if side is None:
        return "", "", ""
    return unit.format(side.mean, 3), unit.format(side.stdev, 3), str(side.runs)


def _raw_side(side: SideStats | None) -> tuple[RawValue, RawValue, RawValue]:
    if side is None:
        return None, None, None
    return side.mean, side.stdev, side.runs


def _raw_interval(interval: tuple[float, float] | None) -> tuple[RawValue, RawValue]:
    if interval is None:
        return None, None
    return raw_percent(interval[0]), raw_percent(interval[1])


def _verdicts(row: ComparisonRow) -> str:
    return "; ".join(verdict_words(report.result, report.method) for report in row.reports)


def _header(unit: str, testbeds: bool, interval: tuple[str, ...]) -> tuple[str, ...]:
    return (
        "Test Case",
        *(("Testbed",) if testbeds else ()),
        f"A Mean [{unit}]",
        f"A Stdev [{unit}]",
        "A Runs [#]",
        f"B Mean [{unit}]",
        f"B Stdev [{unit}]",
        "B Runs [#]",
        "Change [%]",
        *interval,
        "Verdict",
    )


def _interval(interval: tuple[float, float] | None) -> str:
    if interval is None:
        return ""
    return f"{percent(interval[0])} .. {percent(interval[1])}"


def _classes(row: ComparisonRow) -> tuple[str, ...]:
    results = {report.result for report in row.reports}
    for verdict in SEVERITY:
        if verdict in results:
            return ROW_CLASSES[verdict]
    return ()


def comparison_table(
    rows: Sequence[ComparisonRow], a: Period, b: Period, unit: str | None
) -> Table:
    """Rows in the order given; names link to the graphs, verdicts colour the rows.

    A Testbed column appears when the rows come from more than one testbed:
    the same test on two testbeds is two rows, which must not look identical.
    """
    display = display_unit(unit)
    testbeds = len({row.testbed for row in rows}) > 1
    return Table(
        caption=f"A: {a.label} ({len(a.builds)} builds) vs B: {b.label} ({len(b.builds)} builds)",
        header=_header(display.label, testbeds, ("95 % CI [%]",)),
        raw_header=_header(unit or "value", testbeds, ("95 % CI Low [%]", "95 % CI High [%]")),
        kinds=(LABEL, *((LABEL,) if testbeds else ()), *(NUMBER,) * 8, TEXT),
        rows=tuple(
            Row(
                cells=(
                    row.name,
                    *((row.testbed or "",) if testbeds else ()),
                    *_side(row.a, display),
                    *_side(row.b, display),
                    percent(row.change),
                    _interval(row.interval),
                    _verdicts(row),
                ),
                link_key=row.key,
                classes=_classes(row),
                raw=(
                    row.name,
                    *((row.testbed,) if testbeds else ()),
                    *_raw_side(row.a),
                    *_raw_side(row.b),
                    raw_percent(row.change),
                    *_raw_interval(row.interval),
                    _verdicts(row),
                ),
            )
            for row in rows
        ),
    )


def samples_table(rows: Sequence[ComparisonRow], unit: str | None) -> Table:
    """Every observation of every row, side by side with its row, untrimmed and
    unformatted: what the comparison's statistics were computed from."""
    label = f"Value [{unit}]" if unit else "Value"
    return Table(
        caption="",
        header=("Test Case", "Testbed", "Side", label),
        rows=tuple(
            Row(cells=(), raw=(row.name, row.testbed, side, value))
            for row in rows
            for side, values in (("A", row.samples_a), ("B", row.samples_b))
            for value in values
        ),
        raw_header=("Test Case", "Testbed", "Side", label),
    )
