"""Degradation reports of one target build as a table."""

from __future__ import annotations

from sphinxcontrib_trending.analysis.degradation import (
    DEGRADATION,
    MAYBE_DEGRADATION,
    MAYBE_OPTIMIZATION,
    OPTIMIZATION,
)
from sphinxcontrib_trending.analysis.degradation.registry import method_title
from sphinxcontrib_trending.display import DisplayUnit, display_unit, percent
from sphinxcontrib_trending.render.table import LABEL, NUMBER, TEXT, Row, Table, raw_percent
from sphinxcontrib_trending.reports.degradation import TargetRecords

ROW_CLASSES = {
    DEGRADATION: ("trending-regression",),
    OPTIMIZATION: ("trending-progression",),
    MAYBE_DEGRADATION: ("trending-maybe",),
    MAYBE_OPTIMIZATION: ("trending-maybe",),
}


def _value(value: float | str | None, unit: DisplayUnit) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return unit.format(value, 3)


def _confidence(kind: str, value: float | None) -> str:
    return "" if value is None else f"{value:.3f} ({kind})"


def degradation_table(target: TargetRecords, unit: str | None, no_change: bool = False) -> Table:
    """One row per report (No Change only with ``no_change``); names link to the graphs."""
    display = display_unit(unit)
    rows = tuple(
        Row(
            cells=(
                record.name,
                record.result,
                record.subtype,
                method_title(record.method) if record.method else "",
                record.baseline or "",
                _value(record.from_value, display),
                _value(record.to_value, display),
                percent(record.relative_change),
                _confidence(record.confidence_type, record.confidence),
            ),
            link_key=record.key,
            classes=ROW_CLASSES.get(record.result, ()),
            raw=(
                record.name,
                record.result,
                record.subtype,
                record.method,
                record.baseline,
                record.from_value,
                record.to_value,
                raw_percent(record.relative_change),
                record.confidence,
                record.confidence_type,
            ),
        )
        for record in target.shown(no_change)
    )
    return Table(
        caption=target.caption,
        header=(*_header(display.label), "Confidence"),
        rows=rows,
        raw_header=(*_header(unit or "value"), "Confidence", "Confidence Type"),
        kinds=(LABEL, TEXT, TEXT, TEXT, LABEL, NUMBER, NUMBER, NUMBER, NUMBER),
    )


def _header(unit: str) -> tuple[str, ...]:
    return (
        "Test Case",
        "Result",
        "Subtype",
        "Method",
        "Baseline [CI job/build]",
        f"From [{unit}]",
        f"To [{unit}]",
        "Change [%]",
    )
