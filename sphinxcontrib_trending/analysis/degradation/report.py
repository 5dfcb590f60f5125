"""The verdict vocabulary every degradation method reports in.

Perun's chapter on degradation checks names six kinds of result; keeping them
as plain strings (not an enum) lets the directive, the CLI and JSON output
print them unchanged.  A method answers "is the target worse than the
baseline?"; what *worse* means depends on the metric, hence ``direction``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sphinxcontrib_trending.analysis.classify import DIRECTIONS

NO_CHANGE = "No Change"
DEGRADATION = "Degradation"
OPTIMIZATION = "Optimization"
MAYBE_DEGRADATION = "Maybe Degradation"
MAYBE_OPTIMIZATION = "Maybe Optimization"
UNKNOWN = "Unknown"

VERDICTS = (NO_CHANGE, DEGRADATION, OPTIMIZATION, MAYBE_DEGRADATION, MAYBE_OPTIMIZATION, UNKNOWN)

LOWER_IS_BETTER = "lower"

MISSING_BASELINE = "missing baseline"
MISSING_TARGET = "missing target"


@dataclass(frozen=True, slots=True)
class Report:
    """One finding of one method for one location (test or resource id).

    ``from_value``/``to_value`` are what the method compared: averages or
    medians for the numeric methods, model names for the model-order method.
    ``confidence`` is ``None`` when the method has none (``confidence_type``
    is then ``"none"``).  ``relative_change`` is ``to / from - 1`` where the
    method compares numbers; ``reason`` explains the verdict for humans.
    """

    result: str
    subtype: str
    confidence_type: str
    confidence: float | None
    location: str
    from_value: float | str | None
    to_value: float | str | None
    method: str
    relative_change: float | None = None
    reason: str = ""


def check_direction(direction: object) -> None:
    """Reject a direction other than ``lower`` or ``higher`` with a clear message."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be 'lower' or 'higher', not {direction!r}")


def got_worse(before: float, after: float, direction: str) -> bool:
    """Whether moving from ``before`` to ``after`` is a step in the bad direction."""
    return after > before if direction == LOWER_IS_BETTER else after < before


def directional_verdict(worse: bool, *, certain: bool) -> str:
    """Degradation or Optimization, prefixed with "Maybe" when not certain."""
    verdict = DEGRADATION if worse else OPTIMIZATION
    return verdict if certain else f"Maybe {verdict}"


def relative_change(before: float, after: float) -> float | None:
    """``after / before - 1``; undefined (``None``) for a zero baseline."""
    return after / before - 1.0 if before != 0 else None


def unknown(
    location: str, method: str, subtype: str, reason: str, confidence_type: str = "none"
) -> Report:
    """An Unknown report: nothing was compared, so no values and no confidence."""
    return Report(
        result=UNKNOWN,
        subtype=subtype,
        confidence_type=confidence_type,
        confidence=None,
        location=location,
        from_value=None,
        to_value=None,
        method=method,
        reason=reason,
    )
