"""Which value resolution and which judging a series gets: the seed's, or one from its spread.

The methodology's resolution is fixed relative to the largest value
(``unit = max / 8191``, see :mod:`.bits`): right for CSIT's throughput,
whose noise is a few percent of a level far from zero, but it ties the
evidence a change carries to where zero lies, not to how noisy the series
is.  The same series with an offset added is grouped differently, and on
series of other kinds (trends, seasons, random walks) the fine resolution
cuts slow movement into many small steps.

The ``"spread"`` calibration derives the unit from the series itself, a
quarter of the population standard deviation of its run averages, and
judges the changes at 95 % confidence after discounting serially
correlated residuals (a trend cut into steps is weak evidence of a change).
It is scale free (multiplying a series leaves its grouping alone) and ties
the evidence to the noise; an offset still counts, but only through the
average's code length, the logarithm of the largest value in units.
``"seed"`` is the methodology as specified; ``"auto"`` picks the seed's for
CSIT's own formats (and wherever ``sbps`` is set) and the spread's for the
rest.
Why these numbers, and what they cost, is on the accuracy page
(:doc:`/methodology/accuracy`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

import numpy as np

from sphinxcontrib_trending.analysis.grading import AnomalyPolicy
from sphinxcontrib_trending.analysis.runs import Run, prepare_runs

Calibration = Literal["auto", "seed", "spread"]
CALIBRATIONS: tuple[Calibration, ...] = get_args(Calibration)

SEED_FORMATS = frozenset({"robot", "csit-json", "parquet"})
"""CSIT's own result formats: ``"auto"`` keeps the seed's calibration for them."""

SPREAD_FRACTION = 0.25
"""The ``"spread"`` unit as a share of the series' standard deviation."""

SPREAD_POLICY = AnomalyPolicy(min_confidence=0.95, discount_serial_correlation=True)
"""How ``"spread"`` judges changes unless the configuration sets a policy."""


def resolve_calibration(
    calibration: str, source_format: str, sbps: float | None = None
) -> Literal["seed", "spread"]:
    """The calibration a source's series get: ``"auto"`` decided by the source's format.

    An explicit ``sbps`` asks for the seed's kind of resolution, so
    ``"auto"`` honours it rather than overriding it with the spread's unit.
    """
    if calibration not in CALIBRATIONS:
        raise ValueError(f"calibration must be one of {CALIBRATIONS}, got {calibration!r}")
    if calibration == "auto":
        return "seed" if source_format in SEED_FORMATS or sbps else "spread"
    return "seed" if calibration == "seed" else "spread"


def spread_unit(runs: Sequence[Run]) -> float | None:
    """A quarter of the standard deviation of the run averages; None when they do not vary.

    None leaves the unit to ``sbps`` (a constant series has nothing to split).
    """
    averages = prepare_runs(runs).avgs
    if len(averages) < 2:
        return None
    spread = float(np.std(averages))
    return SPREAD_FRACTION * spread if spread > 0.0 else None


def calibrated_unit(runs: Sequence[Run], calibration: str) -> float | None:
    """The unit a resolved calibration gives ``runs``: None (the ``sbps`` unit) for the seed's."""
    return spread_unit(runs) if calibration == "spread" else None


def calibrated_policy(policy: AnomalyPolicy, calibration: str) -> AnomalyPolicy:
    """``policy``, or :data:`SPREAD_POLICY` for ``"spread"`` when ``policy`` is the default."""
    if calibration == "spread" and policy == AnomalyPolicy():
        return SPREAD_POLICY
    return policy
