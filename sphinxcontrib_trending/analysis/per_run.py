"""Per-run views of a classification, in the caller's run numbering.

Graphs draw one point per run and dashboards count runs; these helpers spell
out, once, how groups map onto runs (missing runs get no trend and no label).
"""

from __future__ import annotations

from collections.abc import Sequence

from sphinxcontrib_trending.analysis.classify import Classification
from sphinxcontrib_trending.analysis.grading import (
    AnomalyPolicy,
    AnomalyVerdict,
    Verdict,
    judge,
    measured_between,
    missing_runs,
)


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


def anomaly_per_run(
    result: Classification, policy: AnomalyPolicy | None = None
) -> list[Verdict | None]:
    """The verdict on the run that starts a changed group, None elsewhere.

    Without a policy the labels are ``"regression"``/``"progression"``, as
    the grouping found them; a policy can also give ``"maybe regression"`` or
    ``"maybe progression"`` (see :func:`verdict_per_run` for the flags).  A
    group always starts at a measured run, so a label never lands on a
    missing one.
    """
    return [
        None if verdict is None else verdict.verdict for verdict in verdict_per_run(result, policy)
    ]


def verdict_per_run(
    result: Classification,
    policy: AnomalyPolicy | None = None,
    judged: Sequence[AnomalyVerdict] | None = None,
) -> list[AnomalyVerdict | None]:
    """The full verdict (label, provisional flag, confidence, relative change)
    on the run that starts a changed group, None elsewhere.

    ``judged`` is ``judge(result, policy)`` when the caller has it already.
    """
    verdicts: list[AnomalyVerdict | None] = [None] * result.run_count
    for verdict in judge(result, policy) if judged is None else judged:
        if verdict.anomaly:
            verdicts[verdict.start] = verdict
    return verdicts


def runs_in_last_group(result: Classification) -> int:
    """Measured (non-missing) runs in the last group: how long the current level has held."""
    if not result.groups:
        return 0
    last = result.groups[-1]
    return measured_between(missing_runs(result), last.start, last.stop)
