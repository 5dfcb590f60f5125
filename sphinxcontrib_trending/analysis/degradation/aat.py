"""Average Amount Threshold: the ratio of the average amounts.

The simplest of Perun's checks and the one without limitations: it needs no
workload parameter and no number of trials, only that the averages are
positive amounts (times, rates, sizes).  It has no notion of noise, hence no
confidence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .report import (
    LOWER_IS_BETTER,
    NO_CHANGE,
    UNKNOWN,
    Report,
    check_direction,
    directional_verdict,
    relative_change,
)

NAME = "average_amount_threshold"
SUBTYPE = "ratio"


@dataclass(frozen=True)
class AverageAmountThresholdOptions:
    """Thresholds on the *worsening factor* (see :func:`check`).

    The defaults are Perun's: twice as bad is a Degradation, twice as good an
    Optimization.
    """

    degradation_threshold: float = 2.0
    optimization_threshold: float = 0.5
    direction: str = LOWER_IS_BETTER

    def __post_init__(self) -> None:
        check_direction(self.direction)
        if not 0 < self.optimization_threshold <= 1 <= self.degradation_threshold:
            raise ValueError(
                "thresholds must satisfy 0 < optimization_threshold <= 1 <= "
                f"degradation_threshold, got {self.optimization_threshold} and "
                f"{self.degradation_threshold}"
            )


def check(
    location: str,
    baseline: np.ndarray,
    target: np.ndarray,
    options: AverageAmountThresholdOptions,
) -> Report:
    """Compare the averages through the worsening factor.

    The factor is ``target / baseline`` for lower-is-better metrics and
    ``baseline / target`` for higher-is-better ones, so one pair of
    thresholds serves both: factor >= ``degradation_threshold`` is a
    Degradation, factor <= ``optimization_threshold`` an Optimization.
    """
    before = float(np.mean(baseline))
    after = float(np.mean(target))

    def report(result: str, reason: str) -> Report:
        return Report(
            result=result,
            subtype=SUBTYPE,
            confidence_type="none",
            confidence=None,
            location=location,
            from_value=before,
            to_value=after,
            method=NAME,
            relative_change=relative_change(before, after),
            reason=reason,
        )

    if before == after:
        return report(NO_CHANGE, "equal averages")
    if before <= 0 or after <= 0:
        return report(UNKNOWN, "a ratio of averages needs positive averages")
    factor = after / before if options.direction == LOWER_IS_BETTER else before / after
    reason = f"worsening factor {factor:.4g}"
    if factor >= options.degradation_threshold:
        return report(directional_verdict(True, certain=True), reason)
    if factor <= options.optimization_threshold:
        return report(directional_verdict(False, certain=True), reason)
    return report(NO_CHANGE, reason)
