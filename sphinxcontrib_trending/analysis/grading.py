"""Graded verdicts on the changes the grouping found, under a configurable policy.

The grouping reports every change worth a new group, however weakly
supported or small; that is the faithful method and stays the default.  A
team that wants fewer, surer alarms sets a policy: changes below a
confidence or a relative size become "maybe", and changes too recent to have
been confirmed by later runs are flagged provisional.  The policy only
relabels: groups, averages and bits stay those of the grouping.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Literal

from sphinxcontrib_trending.analysis.classify import Classification, Group
from sphinxcontrib_trending.analysis.confidence import discounted_bits, split_confidence

Verdict = Literal["regression", "progression", "maybe regression", "maybe progression", "normal"]
VERDICTS: tuple[Verdict, ...] = (
    "regression",
    "progression",
    "maybe regression",
    "maybe progression",
    "normal",
)


@dataclass(frozen=True)
class AnomalyPolicy:
    """How firmly a change is reported.  The defaults report every change firmly.

    Attributes:
        min_confidence: A change whose :attr:`~.Group.confidence` is below this
            (or unknown) is only a "maybe".  In [0, 1].
        min_change: A change whose relative size ``|new - old| / |old|`` of the
            group averages is below this (0.05 = 5 %) is only a "maybe".
        provisional_runs: A change whose group starts within the last this
            many measured runs of the history is provisional: too few later
            runs confirm it yet.  0 marks nothing provisional.
        discount_serial_correlation: Judge the confidence after discounting
            the bits saved for serially correlated residuals
            (:attr:`~.Group.serial_correlation`, see
            :func:`~.confidence.discounted_bits`): a trend or a season cut
            into steps then counts as weak evidence of a change.
    """

    min_confidence: float = 0.0
    min_change: float = 0.0
    provisional_runs: int = 0
    discount_serial_correlation: bool = False

    def __post_init__(self) -> None:
        if not 0.0 <= self.min_confidence <= 1.0:
            raise ValueError(f"min_confidence must be in [0, 1], got {self.min_confidence!r}")
        if not self.min_change >= 0.0 or math.isinf(self.min_change):
            raise ValueError(f"min_change must be finite and >= 0, got {self.min_change!r}")
        runs = self.provisional_runs
        if not isinstance(runs, int) or isinstance(runs, bool) or runs < 0:
            raise ValueError(f"provisional_runs must be an integer >= 0, got {runs!r}")


@dataclass(frozen=True)
class AnomalyVerdict:
    """The verdict on one group: how its start is reported."""

    start: int
    """Index of the run that starts the group (the caller's numbering)."""
    verdict: Verdict
    provisional: bool
    """The group starts within the policy's last ``provisional_runs`` measured runs."""
    confidence: float | None
    """The confidence the verdict was judged by: :attr:`~.Group.confidence`, or
    its discounted form when the policy discounts serial correlation."""
    relative_change: float | None
    """``(avg - previous avg) / |previous avg|``; None for the first group, or
    when the previous average is 0."""

    @property
    def firm(self) -> bool:
        """A regression or progression without "maybe"."""
        return self.verdict in ("regression", "progression")

    @property
    def anomaly(self) -> bool:
        """Any verdict but "normal"."""
        return self.verdict != "normal"


def change_ratio(value: float, reference: float | None) -> float | None:
    """``(value - reference) / |reference|``; None without a reference or against 0.

    Dividing by the magnitude keeps the sign meaning "went up" for metrics
    that can be negative (a difference, a temperature); for the usual
    positive metrics it is the plain relative change.  Every relative change
    on the site (anomalies, compliance, the gate) is this one.
    """
    if reference is None or reference == 0.0:
        return None
    return (value - reference) / abs(reference)


def relative_change(group: Group, previous: Group | None) -> float | None:
    """Relative change of the group average against the previous group's."""
    return None if previous is None else change_ratio(group.avg, previous.avg)


def judged_confidence(group: Group, policy: AnomalyPolicy) -> float | None:
    """The group's confidence as ``policy`` weighs it (None for the first group)."""
    if group.bits_saved is None or not policy.discount_serial_correlation:
        return group.confidence
    correlation = group.serial_correlation or 0.0
    return split_confidence(discounted_bits(group.bits_saved, correlation))


def judge_anomaly(
    group: Group,
    previous: Group | None,
    policy: AnomalyPolicy | None = None,
    *,
    runs_since: int,
    outlier_runs: int = 0,
) -> AnomalyVerdict:
    """The verdict on ``group``, which follows ``previous`` (None for the first group).

    The direction comes from ``group.comment`` (set by :func:`~.classify`
    with the metric's direction).  ``runs_since`` counts the measured runs
    from the group's first run to the end of the history, that run included.
    A change from an average of 0 has no relative size and is never too small.
    A group of at most ``outlier_runs`` runs at the end of the history is
    provisional whatever the policy: it may yet prove an outlier (see
    :mod:`.outliers`) once later runs come back to the level before it.
    """
    policy = policy or AnomalyPolicy()
    change = relative_change(group, previous)
    confidence = judged_confidence(group, policy)
    if group.comment == "normal":
        return AnomalyVerdict(group.start, "normal", False, confidence, change)
    unsure = policy.min_confidence > 0.0 and (
        confidence is None or confidence < policy.min_confidence
    )
    small = change is not None and abs(change) < policy.min_change
    verdict: Verdict = group.comment
    if unsure or small:
        verdict = "maybe regression" if group.comment == "regression" else "maybe progression"
    provisional = runs_since <= max(policy.provisional_runs, outlier_runs)
    return AnomalyVerdict(group.start, verdict, provisional, confidence, change)


def judge(result: Classification, policy: AnomalyPolicy | None = None) -> list[AnomalyVerdict]:
    """The verdict on every group of ``result``, oldest first."""
    policy = policy or AnomalyPolicy()
    missing = missing_runs(result)
    verdicts = []
    previous = None
    for group in result.groups:
        verdicts.append(
            judge_anomaly(
                group,
                previous,
                policy,
                runs_since=measured_between(missing, group.start, result.run_count),
                outlier_runs=result.outlier_runs,
            )
        )
        previous = group
    return verdicts


def missing_runs(result: Classification) -> list[int]:
    """The missing runs within the series, ascending, once each: what
    :func:`measured_between` counts against."""
    return sorted({index for index in result.missing if 0 <= index < result.run_count})


def measured_between(missing: list[int], start: int, stop: int) -> int:
    """Measured runs in ``[start, stop)``, given :func:`missing_runs`.

    Counted from the few missing runs, not by walking every run: the
    dashboard judges every series of a site on every build, and walking
    each one's whole history made the summaries grow with its length.
    """
    inside = bisect.bisect_left(missing, stop) - bisect.bisect_left(missing, start)
    return max(stop - start, 0) - inside
