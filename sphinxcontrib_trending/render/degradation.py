"""Degradation reports of one target build as a table."""

from __future__ import annotations

from sphinxcontrib_trending.analysis.degradation import (
    DEGRADATION,
    MAYBE_DEGRADATION,
    MAYBE_OPTIMIZATION,
    OPTIMIZATION,
)
from sphinxcontrib_trending.analysis.degradation.builds import BuildComparison
from sphinxcontrib_trending.analysis.history import history_key
from sphinxcontrib_trending.render.table import Row, Table, percent
from sphinxcontrib_trending.render.units import DisplayUnit, display_unit

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


def degradation_table(comparison: BuildComparison, unit: str | None) -> Table:
    """One row per report; test names link to the graph of the target's testbed."""
    display = display_unit(unit)
    target = comparison.target
    rows = []
    for report in comparison.reports:
        baseline = comparison.baselines.get(report.location)
        rows.append(
            Row(
                cells=(
                    comparison.names.get(report.location, report.location),
                    report.result,
                    report.subtype,
                    report.method,
                    f"{baseline.job}-{baseline.build}" if baseline else "",
                    _value(report.from_value, display),
                    _value(report.to_value, display),
                    percent(report.relative_change),
                    _confidence(report.confidence_type, report.confidence),
                ),
                link_key=history_key(target.testbed, report.location),
                classes=ROW_CLASSES.get(report.result, ()),
            )
        )
    return Table(
        caption=f"{target.job}-{target.build} ({target.time:%Y-%m-%d %H:%M} UTC)",
        header=(
            "Test Case",
            "Result",
            "Subtype",
            "Method",
            "Baseline [CI job build]",
            f"From [{display.label}]",
            f"To [{display.label}]",
            "Change [%]",
            "Confidence",
        ),
        rows=tuple(rows),
    )
