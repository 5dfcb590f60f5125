"""Best Model Order Equality: did the complexity class of the growth change?

For each side, the amount is fitted against the workload by every model of
:mod:`.models`; the best one represents that side.  A change of the best
model's order is the finding, with the smaller of the two R^2 values as its
confidence, as in Perun.

Picking each side's model alone lets noise decide between models that fit
about equally well (a logarithm and a line over a short range), and every
such coin toss was reported as an order change.  So a changed order is
reported only when one side's data reject the other side's model (an F-test
of the residuals at ``alpha``); otherwise both sides are consistent with one
model and the result is No Change.  ``benchmarks/bmoe_order_changes.py``
measures the rule on seeded data (docs/degradation.rst quotes it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .models import ModelFit, best_fit, fit_models, rejects
from .report import (
    LOWER_IS_BETTER,
    NO_CHANGE,
    UNKNOWN,
    Report,
    check_direction,
    directional_verdict,
    unknown,
)

NAME = "best_model_order_equality"
SUBTYPE = "order"


@dataclass(frozen=True)
class BestModelOrderEqualityOptions:
    """``min_r_square``: below it a fit is too poor to trust (Perun: 0.15);
    ``residual_tolerance``: how much more unexplained variance a simpler model
    may leave and still be chosen (see :func:`.models.best_fit`);
    ``alpha``: the level at which one side's data must reject the other
    side's model for a changed order to count (see :func:`.models.rejects`);
    1 reports every changed order, as Perun does."""

    min_r_square: float = 0.15
    residual_tolerance: float = 0.25
    alpha: float = 0.05
    direction: str = LOWER_IS_BETTER

    def __post_init__(self) -> None:
        check_direction(self.direction)
        if not 0 <= self.min_r_square <= 1:
            raise ValueError(f"min_r_square must be within [0, 1], got {self.min_r_square}")
        if not 0 < self.alpha <= 1:
            raise ValueError(f"alpha must be within (0, 1], got {self.alpha}")
        if self.residual_tolerance < 0:
            raise ValueError(
                f"residual_tolerance must not be negative, got {self.residual_tolerance}"
            )


def _rejected(
    sides: dict[str, np.ndarray],
    fits: dict[str, list[ModelFit]],
    before: ModelFit,
    after: ModelFit,
    alpha: float,
) -> bool:
    """Whether the target's data reject the baseline's model, or the other way round."""
    count = {side: len(pairs) for side, pairs in sides.items()}
    return rejects(fits["target"], count["target"], after, before.model, alpha) or rejects(
        fits["baseline"], count["baseline"], before, after.model, alpha
    )


def _describe(side: str, fit: ModelFit) -> str:
    return f"{side} {fit.model} y = {fit.formula} (R^2 {fit.r_square:.3f})"


def check(
    location: str,
    baseline: np.ndarray,
    target: np.ndarray,
    options: BestModelOrderEqualityOptions,
) -> Report:
    """Compare the best models' orders; ``baseline``/``target`` are (n, 2) arrays.

    Both fits at least ``min_r_square``: equal orders are No Change, a higher
    target order a Degradation (an Optimization when higher is better).  A
    poorer fit turns a changed order into a Maybe and an unchanged order
    into Unknown, since nothing can be said about data no model explains.
    """
    sides = {"baseline": baseline, "target": target}
    too_narrow = [side for side, pairs in sides.items() if len(np.unique(pairs[:, 0])) < 2]
    if too_narrow:
        return unknown(
            location,
            NAME,
            SUBTYPE,
            f"the {' and the '.join(too_narrow)} need at least two distinct workloads",
            confidence_type="r_square",
        )
    fits = {side: fit_models(pairs[:, 0], pairs[:, 1]) for side, pairs in sides.items()}
    before = best_fit(fits["baseline"], options.residual_tolerance)
    after = best_fit(fits["target"], options.residual_tolerance)
    confidence = min(before.r_square, after.r_square)
    reliable = confidence >= options.min_r_square
    reason = f"{_describe('baseline', before)}; {_describe('target', after)}"
    changed = before.order != after.order
    if changed and options.alpha < 1 and not _rejected(sides, fits, before, after, options.alpha):
        changed = False
        reason += f"; neither side's data reject the other's model at alpha {options.alpha:g}"
    if not changed:
        result = NO_CHANGE if reliable else UNKNOWN
    else:
        grew = after.order > before.order
        worse = grew if options.direction == LOWER_IS_BETTER else not grew
        result = directional_verdict(worse, certain=reliable)
    if not reliable:
        reason += f"; R^2 below {options.min_r_square}"
    return Report(
        result=result,
        subtype=SUBTYPE,
        confidence_type="r_square",
        confidence=confidence,
        location=location,
        from_value=before.model,
        to_value=after.model,
        method=NAME,
        reason=reason,
    )
