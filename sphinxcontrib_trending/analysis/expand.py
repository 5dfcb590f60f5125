"""Per-run views of a classification, in the caller's run numbering.

Graphs draw one point per run and dashboards count runs; these helpers spell
out, once, how groups map onto runs (missing runs get no trend and no label).
"""

from __future__ import annotations

from sphinxcontrib_trending.analysis.classify import Classification


def trend_per_run(result: Classification) -> list[float | None]:
    """The average of the group each run belongs to; None for missing runs and
    for runs outside every group (missing runs before the first measured one or
    after the last)."""
    trend: list[float | None] = [None] * result.run_count
    for group in result.groups:
        for index in range(group.start, group.stop):
            trend[index] = group.avg
    for index in result.missing:
        trend[index] = None
    return trend


def anomaly_per_run(result: Classification) -> list[str | None]:
    """``"regression"``/``"progression"`` on the run that starts such a group.

    A group always starts at a measured run, so the label never lands on a
    missing one.
    """
    labels: list[str | None] = [None] * result.run_count
    for group in result.groups:
        if group.comment != "normal":
            labels[group.start] = group.comment
    return labels


def runs_in_last_group(result: Classification) -> int:
    """Measured (non-missing) runs in the last group: how long the current level has held."""
    if not result.groups:
        return 0
    last = result.groups[-1]
    missing = set(result.missing)
    return sum(1 for index in range(last.start, last.stop) if index not in missing)
