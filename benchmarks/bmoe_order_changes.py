"""How often Best Model Order Equality reports an order change, on seeded data.

Usage::

    python benchmarks/bmoe_order_changes.py [--pairs 300]

Each cell runs ``--pairs`` seeded (baseline, target) pairs of ``(workload,
amount)`` series through ``compare(..., "bmoe")`` and counts the reports of a
changed order (Degradation, Optimization or a Maybe of either).  Workloads
are ``n`` points evenly spread over [1, 10]; amounts are one of

* constant ``30``, linear ``10 + 3x``, quadratic ``10 + 3x + 0.5x^2``,

plus Gaussian noise of the given standard deviation.  Where baseline and
target share the shape every reported change is spurious (lower is better);
where the shape changes (constant -> linear, linear -> quadratic) every
reported change is a detection (higher is better).

Three rules are compared:

* ``Perun``: the best model purely by R^2 (``residual_tolerance=0``) and
  every changed order reported (``alpha=1``);
* ``tolerance``: the simplest model within 25 % of the best residual
  (``residual_tolerance=0.25``), every changed order reported: the rule
  before the F-test was added;
* ``default``: the tolerance, and a changed order reported only when one
  side's data reject the other side's model (F-test, ``alpha=0.05``).
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

import numpy as np

from sphinxcontrib_trending.analysis.degradation import (
    DEGRADATION,
    MAYBE_DEGRADATION,
    MAYBE_OPTIMIZATION,
    OPTIMIZATION,
    compare,
)

CHANGED = frozenset({DEGRADATION, OPTIMIZATION, MAYBE_DEGRADATION, MAYBE_OPTIMIZATION})
SHAPES = {
    "constant": lambda x: np.full_like(x, 30.0),
    "linear": lambda x: 10.0 + 3.0 * x,
    "quadratic": lambda x: 10.0 + 3.0 * x + 0.5 * x * x,
}
PAIRS = (
    ("constant", "constant"),
    ("linear", "linear"),
    ("quadratic", "quadratic"),
    ("constant", "linear"),
    ("linear", "quadratic"),
)
RULES = {
    "Perun": {"residual_tolerance": 0.0, "alpha": 1.0},
    "tolerance": {"residual_tolerance": 0.25, "alpha": 1.0},
    "default": {},
}
SIZES = (10, 30)
NOISES = (2.0, 10.0)


def _series(rng: random.Random, shape: str, size: int, noise: float) -> list[tuple[float, float]]:
    workloads = np.linspace(1.0, 10.0, size)
    amounts = SHAPES[shape](workloads) + np.array([rng.gauss(0.0, noise) for _ in range(size)])
    return [(float(x), float(y)) for x, y in zip(workloads, amounts, strict=True)]


def count_changes(pair: tuple[str, str], size: int, noise: float, repeats: int) -> list[int]:
    """Changed-order reports of each rule over ``repeats`` seeded pairs."""
    rng = random.Random(f"bmoe-{pair}-{size}-{noise}")
    counts = [0] * len(RULES)
    for _ in range(repeats):
        baseline = {"t": _series(rng, pair[0], size, noise)}
        target = {"t": _series(rng, pair[1], size, noise)}
        for index, options in enumerate(RULES.values()):
            (report,) = compare(baseline, target, "bmoe", **options)
            counts[index] += report.result in CHANGED
    return counts


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pairs", type=int, default=300, help="seeded pairs per cell")
    args = parser.parse_args(argv)
    print(f"Changed-order reports out of {args.pairs} seeded pairs per cell")
    header = f"{'points':>6s} {'noise':>5s}  {'baseline -> target':24s}"
    print(header + "".join(f"{rule:>11s}" for rule in RULES) + "   (kind)")
    for size in SIZES:
        for noise in NOISES:
            for pair in PAIRS:
                counts = count_changes(pair, size, noise, args.pairs)
                kind = "spurious" if pair[0] == pair[1] else "detected"
                cells = "".join(f"{count:11d}" for count in counts)
                print(f"{size:6d} {noise:5g}  {pair[0] + ' -> ' + pair[1]:24s}{cells}   {kind}")


if __name__ == "__main__":
    main()
