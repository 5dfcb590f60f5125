"""Best Model Order Equality: did the complexity class of the growth change?

For each side, the amount is fitted against the workload by every model of
:mod:`.models`; the best one represents that side.  A change of the best
model's order is the finding, with the smaller of the two R^2 values as its
confidence, as in Perun.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .models import ModelFit, best_fit, fit_models
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
    may leave and still be chosen (see :func:`.models.best_fit`)."""

    min_r_square: float = 0.15
    residual_tolerance: float = 0.25
    direction: str = LOWER_IS_BETTER

    def __post_init__(self) -> None:
        check_direction(self.direction)
        if not 0 <= self.min_r_square <= 1:
            raise ValueError(f"min_r_square must be within [0, 1], got {self.min_r_square}")
        if self.residual_tolerance < 0:
            raise ValueError(
                f"residual_tolerance must not be negative, got {self.residual_tolerance}"
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
    if before.order == after.order:
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
