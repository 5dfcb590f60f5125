"""Least-squares fits of an amount against a workload, for model-order checks.

Each model is fitted by linear least squares, directly (constant,
logarithmic, linear, quadratic) or after taking logarithms (power,
exponential).  Every R^2 is computed on the original values so the models
compete on the same footing; a log-space R^2 would flatter the power and
exponential models.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

MODEL_ORDER = ("constant", "logarithmic", "linear", "quadratic", "power", "exponential")
"""Complexity order, least to most; a change to a later model is a Degradation
(for lower-is-better amounts), as Perun's power -> linear Optimization shows.
The order is fixed and does not look at fitted parameters: power ranks above
quadratic because it wins only when neither polynomial fits as well, but a
power model with an exponent below one still ranks above linear.  The
report's reason carries both formulas for a reader to judge."""

_TIE = 1e-9
"""Unexplained fractions closer than this count as equal (exact fits, rounding)."""


@dataclass(frozen=True, slots=True)
class ModelFit:
    """One fitted model: its name, its R^2 on the original values, its formula."""

    model: str
    r_square: float
    formula: str

    @property
    def order(self) -> int:
        return MODEL_ORDER.index(self.model)

    @property
    def parameters(self) -> int:
        return _SPECS[self.model].parameters


@dataclass(frozen=True, slots=True)
class _Spec:
    """How to fit one model: its parameter count, domain and solver."""

    parameters: int
    needs_positive_workload: bool
    needs_positive_values: bool
    solve: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, str]]


def _least_squares(columns: list[np.ndarray], values: np.ndarray) -> np.ndarray:
    design = np.column_stack(columns)
    coefficients, *_ = np.linalg.lstsq(design, values, rcond=None)
    return coefficients


def _constant(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, str]:
    mean = float(np.mean(y))
    return np.full_like(y, mean), f"{mean:.4g}"


def _logarithmic(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, str]:
    log_x = np.log(x)
    a, b = _least_squares([np.ones_like(x), log_x], y)
    return a + b * log_x, f"{a:.4g} + {b:.4g}*ln(x)"


def _linear(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, str]:
    # Scaling x keeps the normal equations well conditioned for large workloads.
    scale = float(np.max(np.abs(x)))
    a, b = _least_squares([np.ones_like(x), x / scale], y)
    return a + b * x / scale, f"{a:.4g} + {b / scale:.4g}*x"


def _quadratic(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, str]:
    scale = float(np.max(np.abs(x)))
    u = x / scale
    a, b, c = _least_squares([np.ones_like(u), u, u * u], y)
    return a + b * u + c * u * u, f"{a:.4g} + {b / scale:.4g}*x + {c / scale**2:.4g}*x^2"


def _power(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, str]:
    log_a, b = _least_squares([np.ones_like(x), np.log(x)], np.log(y))
    return np.exp(log_a) * np.power(x, b), f"{np.exp(log_a):.4g}*x^{b:.4g}"


def _exponential(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, str]:
    scale = float(np.max(np.abs(x)))
    log_a, b = _least_squares([np.ones_like(x), x / scale], np.log(y))
    return np.exp(log_a + b * x / scale), f"{np.exp(log_a):.4g}*e^({b / scale:.4g}*x)"


_SPECS = {
    "constant": _Spec(1, False, False, _constant),
    "logarithmic": _Spec(2, True, False, _logarithmic),
    "linear": _Spec(2, False, False, _linear),
    "quadratic": _Spec(3, False, False, _quadratic),
    "power": _Spec(2, True, True, _power),
    "exponential": _Spec(2, False, True, _exponential),
}


def fit_models(workloads: np.ndarray, values: np.ndarray) -> list[ModelFit]:
    """Fit every model the data allow, in :data:`MODEL_ORDER`.

    A model is skipped when its domain excludes the data (logarithms of
    non-positive numbers), when there are fewer distinct workloads than it
    has parameters, or when no point is left over to judge the fit.  Values
    that do not vary at all are explained by the constant model alone.
    """
    total = float(np.sum((values - np.mean(values)) ** 2))
    count = len(values)
    if total == 0.0:
        return [ModelFit("constant", 1.0, f"{float(values[0]):.4g}")]
    distinct = len(np.unique(workloads))
    fits = []
    for model in MODEL_ORDER:
        spec = _SPECS[model]
        if distinct < spec.parameters or count <= spec.parameters:
            continue
        if spec.needs_positive_workload and np.any(workloads <= 0):
            continue
        if spec.needs_positive_values and np.any(values <= 0):
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            predicted, formula = spec.solve(workloads, values)
        if not np.all(np.isfinite(predicted)):
            continue
        r_square = 1.0 - float(np.sum((values - predicted) ** 2)) / total
        fits.append(ModelFit(model, r_square, formula))
    return fits


def best_fit(fits: list[ModelFit], tolerance: float) -> ModelFit:
    """The simplest model whose residuals are within ``tolerance`` of the best.

    A model is as good as the best one when its unexplained fraction
    ``1 - R^2`` is at most ``(1 + tolerance)`` times the best's.  Pure R^2
    (``tolerance=0``, Perun's rule) lets noise decide between near-equal
    models: a quadratic never fits worse than the linear model it contains,
    and a power law with exponent near one mimics a line, so a noisy linear
    baseline and target would often report a spurious order change.
    """
    least = min(1.0 - fit.r_square for fit in fits)
    return next(fit for fit in fits if 1.0 - fit.r_square <= least * (1.0 + tolerance) + _TIE)


def rejects(fits: list[ModelFit], count: int, chosen: ModelFit, other: str, alpha: float) -> bool:
    """Whether data of ``count`` points, fitted as ``fits``, reject model ``other``.

    An F-test of the residuals: ``other`` is rejected in favour of ``chosen``
    (the data's own best model) when its extra unexplained variance is
    significant at level ``alpha``, with as many numerator degrees of
    freedom as ``chosen`` has extra parameters (at least one, so that two
    models of equal size are compared too).  A model the data cannot even
    be fitted with (a logarithm of a non-positive value) is rejected; with
    no residual degrees of freedom left nothing is.
    """
    by_name = {fit.model: fit for fit in fits}
    if other not in by_name:
        return True
    extra = max(chosen.parameters - by_name[other].parameters, 1)
    residual_freedom = count - chosen.parameters
    if residual_freedom <= 0:
        return False
    unexplained = max(1.0 - chosen.r_square, 0.0)
    excess = (1.0 - by_name[other].r_square) - unexplained
    if excess <= _TIE:
        return False
    if unexplained <= _TIE:
        return True
    statistic = (excess / extra) / (unexplained / residual_freedom)
    # imported here: scipy.stats costs half a second at every build's start, and few use it
    from scipy import stats

    return bool(stats.f.sf(statistic, extra, residual_freedom) < alpha)
