"""The quadratic exact search that ``search="exact"`` used before pruning: a test oracle.

It finds the partition with the fewest bits over all partitions, seeded with
the jumpavg partition (kept unless strictly beaten), in O(N^2) time and
memory.  The pruned search in :mod:`sphinxcontrib_trending.analysis.exact`
must find the same groups; this module stays only to prove it on inputs too
long for a brute force.

A group's bits depend on the previous group's average, so "best partition of
a prefix" is not enough state; "best partition of runs ``[0, e]`` whose last
group is ``[j, e]``" is.  With ``best[j, e]`` for that::

    best[j, e] = base(j, e) + min over i < j of
                 best[i, j-1] + log2(norm(p_i)) - log2(|a(j, e) - p_i| + 1)

where ``p_i`` is the average of group ``[i, j-1]`` and ``base`` is everything in
the group's bits that does not depend on the previous average.  That is
O(N^3) pairs; for a fixed ``j`` the minimum over ``i`` is one numpy reduction
over an (i, e) matrix.

Most predecessors ``i`` can be dropped before that: the ``p``-dependent term
of predecessor ``i`` lies between ``U_i - log2(max |a - p_i| + 1)`` and ``U_i``
(with ``U_i = best[i, j-1] + log2(norm(p_i))``, ``a`` ranging over the averages
of the groups ``[j, e]``), so a predecessor whose lower bound exceeds the
smallest upper bound can never give any ``best[j, e]``.  Usually a handful
survive, making the search close to O(N^2).

The programme ranks with numpy's fast logarithm; the partition it finds is
then priced with the exact formula.  The reference's own partition is decided
from the same tables (:func:`_incumbent`) and kept unless the programme's
counts strictly fewer bits, so the exact search never reports more bits than
``search="jumpavg"`` on the same input, not even by a rounding error.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.bits import BitModel
from sphinxcontrib_trending.analysis.greedy import (
    Partition,
    Records,
    backtrack,
    decide,
    greedy_search,
)
from sphinxcontrib_trending.analysis.open_groups import OpenGroups
from sphinxcontrib_trending.analysis.runs import PreparedRuns

# Pruning keeps predecessors whose bound is within this (relative) of the
# best: the fast logarithm and the summation order differ by far less.
RELATIVE_SLACK = 1e-9


class StatsTable:
    """Statistics of every group ``[s, k]`` as the bit formula receives them.

    Rows are starts, columns ends; only ``s <= k`` is filled.  ``avg`` is the
    reference's re-derived ``A*n/n`` (also the "previous average" the next
    group sees) and ``moment`` its ``S*S*n``; the stdev fed to the formula is
    ``sqrt(moment / n)``.
    """

    def __init__(self, runs: PreparedRuns) -> None:
        count = runs.count
        self.avg = np.zeros((count, count))
        self.moment = np.zeros((count, count))
        groups = OpenGroups(runs)
        for _ in range(count):
            k = groups.advance()
            self.avg[: k + 1, k] = groups.avg_seen[: k + 1]
            self.moment[: k + 1, k] = groups.moment_seen[: k + 1]
        self.cumulative = groups.cumulative

    def seen_stats(self, start: int, end: int) -> tuple[int, float, float]:
        """(size, avg, stdev) of group ``[start, end]`` for the exact formula."""
        size = int(self.cumulative[end + 1] - self.cumulative[start])
        return size, float(self.avg[start, end]), math.sqrt(float(self.moment[start, end]) / size)


def quadratic_exact_search(runs: PreparedRuns, model: BitModel) -> Partition:
    """The minimum-bits partition of the present runs."""
    count = runs.count
    if count < 3:
        return greedy_search(runs, model)  # it sees every partition of two runs
    table = StatsTable(runs)
    sizes = _group_sizes(table.cumulative)
    stdevs = np.divide(table.moment, sizes)
    best = model.ranking_bits(sizes, np.sqrt(stdevs, out=stdevs))
    del sizes, stdevs
    terms = _predecessor_terms(table.avg, model)
    incumbent = _incumbent(table, best, terms, model)
    starts = _programme(table, best, terms, model)
    stats = [
        table.seen_stats(start, stop - 1)
        for start, stop in zip(starts, (*starts[1:], count), strict=True)
    ]
    bits = model.partition_bits(starts, stats)
    if bits < incumbent.bits:
        return Partition(
            starts=starts,
            sizes=tuple(size for size, _, _ in stats),
            avgs=tuple(avg for _, avg, _ in stats),
            stdevs=tuple(stdev for _, _, stdev in stats),
            bits=bits,
        )
    return incumbent


def _group_sizes(cumulative: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Trials in every group ``[j, e]``; 1 below the diagonal (unused, kept finite)."""
    sizes = cumulative[None, 1:] - cumulative[:-1, None]
    np.maximum(sizes, 1, out=sizes)
    return sizes


Terms = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]


def _incumbent(
    table: StatsTable, base: npt.NDArray[np.float64], terms: Terms, model: BitModel
) -> Partition:
    """The jumpavg partition, decided from the tables instead of run by run.

    The reference's candidate "record before s, then [s, k]" costs
    ``base[s, k] + key_s - log2(|a(s, k) - p_s| + 1)``: with ``base`` and the
    averages already tabulated, each run needs a handful of operations on one
    column.  Decisions go through the same :func:`~.greedy.decide` as the
    run-by-run search, so the partition and bits are the reference's.
    """
    prev_avgs, norm_bits, _ = terms
    count = len(base)
    records = Records(model, table.cumulative)
    key = np.empty(count)
    prev = np.empty(count)
    buffer = np.empty(count)
    key[0] = model.first_avg_bits
    for k in range(count):
        stop = k + 1
        if k:
            winner = records.starts[-1]
            key[k] = records.ranked_totals[-1] + norm_bits[k - 1, winner]
            prev[k] = prev_avgs[k - 1, winner]
        prev[0] = prev_avgs[k, 0]  # the first group has no previous average
        totals = np.subtract(prev_avgs[k, :stop], prev[:stop], out=buffer[:stop])
        np.abs(totals, out=totals)
        totals += 1.0
        np.log2(totals, out=totals)
        np.subtract(base[:stop, k], totals, out=totals)
        totals += key[:stop]
        winner = decide(totals, k, lambda start, end=k: table.seen_stats(start, end), records)
        records.add(
            winner,
            float(table.avg[winner, k]),
            float(table.moment[winner, k]),
            float(totals[winner]),
        )
    return backtrack(records)


def _predecessor_terms(avgs: npt.NDArray[np.float64], model: BitModel) -> Terms:
    """Everything the programme needs about groups as predecessors, indexed ``[e, i]``.

    For the group ``[i, e]`` followed by a group starting at ``e + 1``: its
    average (in units), ``log2(norm(p))`` and that minus the largest
    ``log2(|a - p| + 1)`` over the averages ``a`` of the groups ``[e + 1, ...]``
    (fast logarithm).  Indexed by end first, so that a column of ends is
    contiguous.
    """
    count = len(avgs)
    big_m = model.max_in_units
    on_or_above = np.triu(np.ones((count, count), dtype=bool))
    low = avgs.min(axis=1, where=on_or_above, initial=np.inf) / model.unit
    high = avgs.max(axis=1, where=on_or_above, initial=-np.inf) / model.unit
    del on_or_above
    prev_avgs = np.divide(avgs.T, model.unit)
    norm_bits = np.subtract(prev_avgs, big_m / 2.0)
    norm_bits *= norm_bits
    norm_bits += big_m * big_m / 4.0 + big_m  # norm(p) = (p - M/2)^2 + M^2/4 + M
    np.log2(norm_bits, out=norm_bits)
    # the successor of [i, e] starts at e + 1: per-end values come from row e + 1
    middle = np.append((low[1:] + high[1:]) / 2.0, 0.0)
    half_range = np.append((high[1:] - low[1:]) / 2.0, 0.0)
    lowest_bits = np.subtract(prev_avgs, middle[:, None])
    np.abs(lowest_bits, out=lowest_bits)
    lowest_bits += half_range[:, None] + 1.0
    np.log2(lowest_bits, out=lowest_bits)
    np.subtract(norm_bits, lowest_bits, out=lowest_bits)
    return prev_avgs, norm_bits, lowest_bits


def _programme(
    table: StatsTable, best: npt.NDArray[np.float64], terms: Terms, model: BitModel
) -> tuple[int, ...]:
    """Starts of the groups of the minimum-bits partition (fast logarithm).

    ``best`` comes in holding each group's bits without its average's term and
    leaves holding ``best[j, e]`` as defined in the module docstring.
    """
    count = len(best)
    best[0] += model.first_avg_bits
    prev_avgs, norm_bits, lowest_bits = terms
    upper_buffer = np.empty(count)
    lower_buffer = np.empty(count)
    row_avgs = np.empty(count)
    inverse_unit = 1.0 / model.unit
    add, subtract, log2, absolute = np.add, np.subtract, np.log2, np.abs
    for start in range(1, count):
        column = start - 1
        candidates = best[:start, column]
        upper = add(candidates, norm_bits[column, :start], out=upper_buffer[:start])
        lower = add(candidates, lowest_bits[column, :start], out=lower_buffer[:start])
        chosen = int(upper.argmin())
        ceiling = float(upper[chosen])
        threshold = ceiling + RELATIVE_SLACK * (abs(ceiling) + 1.0)
        row = best[start, start:]
        avgs = np.multiply(table.avg[start, start:], inverse_unit, out=row_avgs[start:])
        lower[chosen] = np.inf
        if lower.min() > threshold:
            jump = subtract(avgs, prev_avgs[column, chosen], out=avgs)
            absolute(jump, out=jump)
            jump += 1.0
            log2(jump, out=jump)
            row -= jump
            row += ceiling
            continue
        lower[chosen] = -np.inf
        kept = np.flatnonzero(lower <= threshold)
        row += _predecessor_costs(avgs, prev_avgs[column, kept], upper[kept]).min(axis=0)
    return _backtrack(best, table.avg, norm_bits, prev_avgs, model.unit)


def _predecessor_costs(
    avgs: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    upper: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """``upper_i - log2(|a_e - p_i| + 1)`` for predecessors ``i`` (rows), ends ``e``."""
    jump = np.subtract(avgs[None, :], prev[:, None])
    np.abs(jump, out=jump)
    jump += 1.0
    np.log2(jump, out=jump)
    return np.subtract(upper[:, None], jump, out=jump)


def _backtrack(
    best: npt.NDArray[np.float64],
    avgs: npt.NDArray[np.float64],
    norm_bits: npt.NDArray[np.float64],
    prev_avgs: npt.NDArray[np.float64],
    unit: float,
) -> tuple[int, ...]:
    """Follow the cheapest predecessors back from the cheapest complete partition.

    The programme keeps no pointers (an N x N index table): along the one path
    that matters, the predecessor is found again by the same minimisation.
    """
    end = len(best) - 1
    start = int(best[:, end].argmin())
    starts = [start]
    while start:
        column = start - 1
        upper = best[:start, column] + norm_bits[column, :start]
        group_avg = np.array([avgs[start, end] / unit])
        costs = _predecessor_costs(group_avg, prev_avgs[column, :start], upper)
        end, start = column, int(costs[:, 0].argmin())
        starts.append(start)
    return tuple(reversed(starts))
