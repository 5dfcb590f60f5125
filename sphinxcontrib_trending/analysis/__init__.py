"""MDL grouping, anomalies, trend compliance and verdicts.  Never imports Sphinx.

The public surface: :func:`classify` (the grouping, with a confidence on every
change), :func:`judge` and :class:`AnomalyPolicy` (graded verdicts), the
per-run helpers :func:`trend_per_run`, :func:`anomaly_per_run`,
:func:`verdict_per_run`, :func:`runs_in_last_group`, :func:`compliance` and
:func:`count_anomalies` / :func:`anomaly_counts` for the dashboard's columns
(their windows placed by :func:`window_marks`),
and :func:`acknowledged_anomalies` for the known-changes file.
"""

from sphinxcontrib_trending.analysis.acknowledged import acknowledged_anomalies
from sphinxcontrib_trending.analysis.classify import Classification, Group, classify
from sphinxcontrib_trending.analysis.compliance import (
    AnomalyCounts,
    Compliance,
    WindowMarks,
    anomaly_counts,
    compliance,
    count_anomalies,
    in_window,
    window_marks,
)
from sphinxcontrib_trending.analysis.confidence import split_confidence
from sphinxcontrib_trending.analysis.grading import (
    VERDICTS,
    AnomalyPolicy,
    AnomalyVerdict,
    judge,
    judge_anomaly,
)
from sphinxcontrib_trending.analysis.per_run import (
    anomaly_per_run,
    runs_in_last_group,
    trend_per_run,
    verdict_per_run,
)

__all__ = [
    "VERDICTS",
    "AnomalyCounts",
    "AnomalyPolicy",
    "AnomalyVerdict",
    "Classification",
    "Compliance",
    "Group",
    "WindowMarks",
    "acknowledged_anomalies",
    "anomaly_counts",
    "anomaly_per_run",
    "classify",
    "compliance",
    "count_anomalies",
    "in_window",
    "judge",
    "judge_anomaly",
    "runs_in_last_group",
    "split_confidence",
    "trend_per_run",
    "verdict_per_run",
    "window_marks",
]
