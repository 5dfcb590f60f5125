"""Statistical tests on the trial samples: a verdict with a real confidence.

Neither ratio thresholds nor model orders know how noisy the trials are.
Here a two-sided test gives a p-value (confidence = 1 - p) and a relative
change threshold says whether the shift matters in practice; the two
together grade the verdict:

==================  ===================  ==================================
significant         large change         verdict
==================  ===================  ==================================
yes                 yes                  Degradation / Optimization
yes                 no                   Maybe Degradation / Optimization
no                  yes                  Maybe Degradation / Optimization
no                  no                   No Change
==================  ===================  ==================================

Significant means p < ``alpha``; large means |relative change| >=
``min_change``.  Welch's t-test compares means and suits roughly normal
trials; the Mann-Whitney U test compares whole distributions (reported
through medians) and shrugs off outliers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .report import (
    LOWER_IS_BETTER,
    NO_CHANGE,
    UNKNOWN,
    Report,
    check_direction,
    directional_verdict,
    got_worse,
    relative_change,
)

WELCH = "welch_t_test"
MANN_WHITNEY = "mann_whitney_u_test"


@dataclass(frozen=True)
class SignificanceOptions:
    """``alpha``: p-value below which a shift is significant;
    ``min_change``: relative change (0.05 = 5 %) from which it is large."""

    alpha: float = 0.05
    min_change: float = 0.05
    direction: str = LOWER_IS_BETTER

    def __post_init__(self) -> None:
        check_direction(self.direction)
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be within (0, 1), got {self.alpha}")
        if self.min_change < 0:
            raise ValueError(f"min_change must not be negative, got {self.min_change}")


def _welch_p_value(baseline: np.ndarray, target: np.ndarray) -> float:
    if np.ptp(baseline) == 0 and np.ptp(target) == 0:
        # No variance at all: the t statistic is undefined, but the answer is
        # certain either way.
        return 1.0 if baseline[0] == target[0] else 0.0
    # imported here: scipy.stats costs half a second at every build's start, and few use it
    from scipy import stats

    return float(stats.ttest_ind(baseline, target, equal_var=False).pvalue)


def _mann_whitney_p_value(baseline: np.ndarray, target: np.ndarray) -> float:
    # imported here: scipy.stats costs half a second at every build's start, and few use it
    from scipy import stats

    return float(stats.mannwhitneyu(baseline, target, alternative="two-sided").pvalue)


@dataclass(frozen=True, slots=True)
class _Test:
    name: str
    subtype: str
    centre: Callable[[np.ndarray], float]
    p_value: Callable[[np.ndarray, np.ndarray], float]


_WELCH_TEST = _Test(WELCH, "mean", lambda values: float(np.mean(values)), _welch_p_value)
_MANN_WHITNEY_TEST = _Test(
    MANN_WHITNEY, "distribution", lambda values: float(np.median(values)), _mann_whitney_p_value
)


def _check(
    test: _Test,
    location: str,
    baseline: np.ndarray,
    target: np.ndarray,
    options: SignificanceOptions,
) -> Report:
    before = test.centre(baseline)
    after = test.centre(target)
    change = relative_change(before, after)

    def report(result: str, p_value: float | None, reason: str) -> Report:
        return Report(
            result=result,
            subtype=test.subtype,
            confidence_type="p_value",
            confidence=None if p_value is None else 1.0 - p_value,
            location=location,
            from_value=before,
            to_value=after,
            method=test.name,
            relative_change=change,
            reason=reason,
        )

    if len(baseline) < 2 or len(target) < 2:
        return report(UNKNOWN, None, "a test needs at least two trials on each side")
    p_value = test.p_value(baseline, target)
    if not np.isfinite(p_value):
        return report(UNKNOWN, None, "the test is undefined for these samples")
    significant = p_value < options.alpha
    large = after != before if change is None else abs(change) >= options.min_change
    reason = f"p = {p_value:.3g} (alpha {options.alpha}), change " + (
        "undefined (zero baseline)" if change is None else f"{change:+.2%}"
    )
    if after == before or not (significant or large):
        return report(NO_CHANGE, p_value, reason)
    worse = got_worse(before, after, options.direction)
    return report(directional_verdict(worse, certain=significant and large), p_value, reason)


def check_welch(
    location: str, baseline: np.ndarray, target: np.ndarray, options: SignificanceOptions
) -> Report:
    """Welch's t-test (unequal variances) on the trial means."""
    return _check(_WELCH_TEST, location, baseline, target, options)


def check_mann_whitney(
    location: str, baseline: np.ndarray, target: np.ndarray, options: SignificanceOptions
) -> Report:
    """Mann-Whitney U test on the trial distributions, reported by medians."""
    return _check(_MANN_WHITNEY_TEST, location, baseline, target, options)
