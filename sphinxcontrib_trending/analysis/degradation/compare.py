"""Run one method over every location of a baseline and a target."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .registry import Method, resolve_method
from .report import MISSING_BASELINE, MISSING_TARGET, Report, unknown

Samples = Sequence[float] | Sequence[tuple[float, float]]


def _as_array(method: Method, location: str, side: str, samples: Samples) -> np.ndarray:
    """The samples as a float array, (n,) or (n, 2) for pair methods.

    A wrong shape is the caller's mistake and raises; non-finite numbers are
    the data's and are reported by the caller as Unknown.
    """
    array = np.asarray(samples, dtype=float)
    if method.pairs and array.size and (array.ndim != 2 or array.shape[1] != 2):
        raise ValueError(
            f"{side} samples of {location!r}: method {method.name!r} needs (workload, value) pairs"
        )
    if not method.pairs and array.ndim != 1:
        raise ValueError(f"{side} samples of {location!r}: expected a flat list of numbers")
    return array


def compare(
    baseline: Mapping[str, Samples],
    target: Mapping[str, Samples],
    method: str | Method = "aat",
    **options: object,
) -> list[Report]:
    """Check every location of ``target`` against ``baseline`` with one method.

    ``baseline`` and ``target`` map a location (test or resource id) to its
    samples: numbers, or ``(workload, value)`` pairs for
    ``best_model_order_equality``.  ``method`` is a full name or its
    initials (or a resolved :class:`Method`); ``options`` are that method's options (all take
    ``direction="lower"`` or ``"higher"``).  Returns one report per location,
    baseline order first, then locations only the target has.  A location on
    one side only is reported as Unknown with subtype ``missing baseline`` or
    ``missing target``; an empty or non-finite sample list as Unknown too.
    Unknown method names, options or sample shapes raise :class:`ValueError`.
    """
    chosen = method if isinstance(method, Method) else resolve_method(method)
    settings = chosen.make_options(options)
    locations = list(baseline) + [location for location in target if location not in baseline]
    reports = []
    for location in locations:
        if location not in target:
            reports.append(unknown(location, chosen.name, MISSING_TARGET, "not in the target"))
            continue
        if location not in baseline:
            reports.append(unknown(location, chosen.name, MISSING_BASELINE, "not in the baseline"))
            continue
        before = _as_array(chosen, location, "baseline", baseline[location])
        after = _as_array(chosen, location, "target", target[location])
        if before.size == 0 or after.size == 0:
            reports.append(unknown(location, chosen.name, "no samples", "a side has no samples"))
        elif not (np.all(np.isfinite(before)) and np.all(np.isfinite(after))):
            reports.append(unknown(location, chosen.name, "no samples", "non-finite samples"))
        else:
            reports.append(chosen.check(location, before, after, settings))
    return reports
