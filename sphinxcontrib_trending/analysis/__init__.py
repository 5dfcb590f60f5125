"""MDL grouping, anomalies, trend compliance and verdicts.  Never imports Sphinx.

The public surface: :func:`classify` (the grouping), the per-run helpers
:func:`trend_per_run`, :func:`anomaly_per_run`, :func:`runs_in_last_group`, and
:func:`compliance` / :func:`count_anomalies` for the dashboard's columns.
"""

from sphinxcontrib_trending.analysis.classify import Classification, Group, classify
from sphinxcontrib_trending.analysis.compliance import Compliance, compliance, count_anomalies
from sphinxcontrib_trending.analysis.confidence import split_confidence
from sphinxcontrib_trending.analysis.expand import (
    anomaly_per_run,
    runs_in_last_group,
    trend_per_run,
)

__all__ = [
    "Classification",
    "Compliance",
    "Group",
    "anomaly_per_run",
    "classify",
    "compliance",
    "count_anomalies",
    "runs_in_last_group",
    "split_confidence",
    "trend_per_run",
]
