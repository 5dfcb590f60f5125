"""How strongly the description length supports each change the grouping reports.

A description length is a probability in disguise: a code of ``L`` bits is
the Shannon code of an event of probability ``2**-L``.  Comparing the chosen
partition with the one that merges a group into its predecessor (every other
group unchanged) therefore weighs two hypotheses, "a change here" and "no
change here": the merge costs ``bits_saved`` more bits, so with equal prior
odds the data make the change ``2**bits_saved`` times as likely, a posterior
probability of ``1 / (1 + 2**-bits_saved)``.

Merging changes three groups' bits: the two merged ones become one, and the
group after them is now encoded against the merged average.  Everything else
in the partition is unchanged, so re-pricing those three is enough: O(1) per
group, O(groups) in all.

The posterior is only as good as the model: independent normal noise around
each level.  A slow trend or a season cut into steps violates it, and every
step looks certain.  The lag-1 autocorrelation of the residuals around the
two groups measures that departure, and :func:`discounted_bits` shrinks the
evidence by the effective-sample-size factor it implies; whether to apply it
is the anomaly policy's choice (:mod:`.verdicts`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.bits import BitModel


def split_confidence(bits_saved: float) -> float:
    """Posterior probability of "change" against "no change" under equal priors.

    ``1 / (1 + 2**-bits_saved)``: 0.5 at zero bits saved, 0.9 at 3.1699
    bits, 0.95 at 4.2479, 0.99 at 6.6294, 0.999 at 9.9643.  The bits are
    counted in the model's unit, so the same data give another confidence
    at another ``unit`` or ``sbps``.  Negative ``bits_saved`` (a
    split the search kept although merging was cheaper) gives less than 0.5.
    Computed from whichever side keeps the power of two at most 1, so that no
    number of bits overflows.
    """
    if bits_saved >= 0.0:
        return 1.0 / (1.0 + math.pow(2.0, -bits_saved))
    odds = math.pow(2.0, bits_saved)
    return odds / (1.0 + odds)


def merged_stats(
    first: tuple[int, float, float], second: tuple[int, float, float]
) -> tuple[int, float, float]:
    """(size, avg, population stdev) of two groups' trials taken together (Chan et al.)."""
    size_a, avg_a, stdev_a = first
    size_b, avg_b, stdev_b = second
    size = size_a + size_b
    delta = avg_b - avg_a
    avg = avg_a + delta * size_b / size
    moment = stdev_a * stdev_a * size_a + stdev_b * stdev_b * size_b
    moment += delta * delta * size_a * size_b / size
    return size, avg, math.sqrt(moment / size)


def bits_saved_per_group(
    model: BitModel, stats: Sequence[tuple[int, float, float]]
) -> list[float | None]:
    """Bits the partition saves by keeping each group apart from its predecessor.

    ``stats`` holds each group's (size, avg, stdev), oldest first.  The first
    group has no predecessor and gets None.  Both partitions are priced with
    :meth:`~.bits.BitModel.group_bits`, each group against its predecessor's
    average.
    """
    count = len(stats)
    if count < 2:  # most prefixes of a stable history: nothing to merge, nothing to price
        return [None] * count
    costs = []
    for index, (size, avg, stdev) in enumerate(stats):
        previous = stats[index - 1][1] if index else None
        costs.append(model.group_bits(size, avg, stdev, previous))
    saved: list[float | None] = [None]
    for index in range(1, count):
        before = stats[index - 2][1] if index >= 2 else None
        size, avg, stdev = merged_stats(stats[index - 1], stats[index])
        merged = model.group_bits(size, avg, stdev, before)
        apart = costs[index - 1] + costs[index]
        if index + 1 < count:
            next_size, next_avg, next_stdev = stats[index + 1]
            merged += model.group_bits(next_size, next_avg, next_stdev, avg)
            apart += costs[index + 1]
        saved.append(merged - apart)
    return saved


def serial_correlation_per_group(
    run_avgs: npt.NDArray[np.float64], starts: Sequence[int], group_avgs: Sequence[float]
) -> list[float | None]:
    """Lag-1 autocorrelation of the residuals around each group and its predecessor.

    ``run_avgs`` are the present runs' averages, ``starts`` the groups' first
    positions among them.  A residual is a run's average minus its group's;
    only neighbours within one group are paired, so the level change itself
    does not count as correlation.  0.0 when the two groups have no spread.
    """
    count = len(starts)
    if count < 2:  # no group with a predecessor: nothing to correlate
        return [None] * count
    bounds = np.asarray(starts, dtype=np.int64)
    sizes = np.empty_like(bounds)
    np.subtract(bounds[1:], bounds[:-1], out=sizes[:-1])
    sizes[-1] = len(run_avgs) - bounds[-1]
    residuals = run_avgs - np.repeat(np.asarray(group_avgs, dtype=np.float64), sizes)
    squares = np.add.reduceat(residuals * residuals, bounds).tolist()
    products = np.empty(len(residuals))
    np.multiply(residuals[:-1], residuals[1:], out=products[:-1])
    products[bounds[1:] - 1] = 0.0  # pairs straddling a group boundary
    products[-1] = 0.0
    lagged = np.add.reduceat(products, bounds).tolist()
    # the sums in Python floats, which add as numpy's scalars do, without a scalar per sum
    correlations: list[float | None] = [None]
    for index in range(1, count):
        spread = squares[index - 1] + squares[index]
        paired = lagged[index - 1] + lagged[index]
        correlations.append(paired / spread if spread > 0.0 else 0.0)
    return correlations


def discounted_bits(bits_saved: float, serial_correlation: float) -> float:
    """``bits_saved`` scaled by the effective-sample-size factor of AR(1) noise.

    With residuals correlated at lag 1 by ``rho > 0``, an average carries the
    information of ``n (1 - rho) / (1 + rho)`` independent runs, and the
    evidence for a change in level shrinks by that factor.  Negative
    correlation is not rewarded (factor 1): the discount only ever doubts.
    """
    rho = min(serial_correlation, 1.0)
    if rho <= 0.0:
        return bits_saved
    return bits_saved * (1.0 - rho) / (1.0 + rho)
