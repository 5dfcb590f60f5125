"""``search="jumpavg"``: the reference library's search, decision for decision.

After each run ``k`` the reference holds the best partition of runs ``[0, k]``
it can build by appending one group to a partition it held earlier: for every
start ``s`` it prices "record after run ``s-1``, then group ``[s, k]``" and keeps
the cheapest.  Ties go to the group ``[k]`` alone, then to the oldest start.
The previous group's average seen by group ``[s, k]`` is therefore fixed once
``s`` opens, which is what makes the search quadratic, and what makes it miss
the global optimum now and then (see :mod:`.exact`).

The candidates are ranked with numpy's logarithm, which can differ from the C
library's in the last bit.  A decision is taken from the fast ranking only when
no other candidate lies within a safety margin far wider than any such
difference; otherwise the close candidates are re-priced with the exact
formula, so partitions, tie-breaks and bit counts match the reference's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.bits import BitModel
from sphinxcontrib_trending.analysis.open_groups import OpenGroups
from sphinxcontrib_trending.analysis.runs import PreparedRuns

# Fast and exact totals differ by a few ulps of the total; decisions closer
# than this (relative) are re-checked exactly.  Wide margin, rarely hit.
RELATIVE_MARGIN = 1e-10


@dataclass(frozen=True)
class Partition:
    """Group starts (indices into the present runs), per-group stats and total bits."""

    starts: tuple[int, ...]
    sizes: tuple[int, ...]
    avgs: tuple[float, ...]
    stdevs: tuple[float, ...]
    bits: float


class StatsTable:
    """Reference statistics of every group ``[s, k]``, kept for the exact search.

    Rows are starts, columns ends; only ``s <= k`` is filled.  Holds the stored
    average and stdev (not the re-derived ones), from which both the bit
    formula's inputs and the next group's "previous average" follow exactly.
    """

    def __init__(self, count: int) -> None:
        self.avg = np.zeros((count, count))
        self.stdev = np.zeros((count, count))

    def store(self, groups: OpenGroups, k: int) -> None:
        self.avg[: k + 1, k] = groups.avg[: k + 1]
        self.stdev[: k + 1, k] = groups.stdev[: k + 1]


class _Ranking:
    """Per-candidate constants and scratch arrays of the fast ranking."""

    def __init__(self, groups: OpenGroups, model: BitModel) -> None:
        count = groups.count
        self.size_bits = model.ranking_size_bits()
        sizes = np.arange(len(self.size_bits))
        self.size_minus_two = sizes - 2.0
        if groups.uniform:
            # sizes of [s, k] for s = 0..k are reversed slices of these
            multiples = np.minimum(groups.multiples, len(sizes) - 1)
            self.size_bits = self.size_bits[multiples]
            self.size_minus_two = self.size_minus_two[multiples]
        self.uniform = groups.uniform
        self.inverse_unit = 1.0 / model.unit
        self.key = np.zeros(count)  # prefix bits + the average's "norm" bits
        self.prev = np.zeros(count)  # previous group's average, raw
        self.gate = np.full(count, self.inverse_unit)  # 0 for the first group
        if count:
            self.gate[0] = 0.0
        # row 0: stdev term, row 1: average term; stacked so that one numpy
        # call does the "+ 1" and one the logarithm of both
        self.terms = np.zeros((2, count))
        self.scratch = np.zeros(count)

    def rank(self, groups: OpenGroups, k: int) -> npt.NDArray[np.float64]:
        """Approximate total bits of "record before s, then group [s, k]" for s <= k.

        The terms of :meth:`BitModel.ranking_bits` plus the average's, computed
        in place to keep the per-run cost at a few array operations.
        """
        stop = k + 1
        terms = self.terms[:, :stop]
        spread, total = terms
        np.multiply(groups.stdev[:stop], self.inverse_unit, out=spread)
        np.subtract(groups.avg[:stop], self.prev[:stop], out=total)
        np.abs(total, out=total)
        total *= self.gate[:stop]
        terms += 1.0
        product = np.add(spread, 1.0, out=self.scratch[:stop])
        product *= spread
        np.divide(product, total, out=total)
        np.log2(terms, out=terms)
        if self.uniform:
            end = len(self.size_bits)
            spread *= self.size_minus_two[end - stop : end]
            total += spread
            total += self.size_bits[end - stop : end]
        else:
            sizes = groups.sizes_through(k)
            spread *= self.size_minus_two[sizes]
            total += spread
            total += self.size_bits[sizes]
        total += self.key[:stop]
        return total


class _Records:
    """The record after each run: last group's start and stats, and its total bits.

    Totals are kept as ranked (fast logarithm); the exact totals the reference
    would hold are derived on demand along the chain of records.
    """

    def __init__(self, model: BitModel) -> None:
        self.model = model
        self.starts: list[int] = []
        self.sizes: list[int] = []
        self.avgs: list[float] = []
        self.stdevs: list[float] = []
        self.ranked_totals: list[float] = []
        self._exact: dict[int, float] = {}

    def add(self, start: int, size: int, avg: float, stdev: float, ranked_total: float) -> None:
        self.starts.append(start)
        self.sizes.append(size)
        self.avgs.append(avg)
        self.stdevs.append(stdev)
        self.ranked_totals.append(ranked_total)

    def prev_avg(self, start: int) -> float | None:
        """Previous group's average as seen by a group opened at run ``start``."""
        return self.avgs[start - 1] if start else None

    def exact_prefix(self, start: int) -> float:
        """Exact bits of the record a group opened at run ``start`` extends.

        After the very first run the reference has not cached the record's bits,
        so its copy re-derives the stats once more before counting them.
        """
        if start == 0:
            return 0.0
        if start == 1:
            return self.model.first_record_bits(self.sizes[0], self.avgs[0], self.stdevs[0])
        return self.exact_total(start - 1)

    def exact_total(self, k: int) -> float:
        """Exact bits of the record after run ``k``, as the reference computes them."""
        pending = []
        step = k
        while step not in self._exact:
            pending.append(step)
            start = self.starts[step]
            if start <= 1:
                break
            step = start - 1
        for step in reversed(pending):
            start = self.starts[step]
            self._exact[step] = self.exact_prefix(start) + self.model.group_bits(
                self.sizes[step], self.avgs[step], self.stdevs[step], self.prev_avg(start)
            )
        return self._exact[k]


def greedy_search(
    runs: PreparedRuns, model: BitModel, table: StatsTable | None = None
) -> Partition:
    """Group the present runs exactly as jumpavg 0.4.2 does; fill ``table`` on the way."""
    groups = OpenGroups(runs)
    ranking = _Ranking(groups, model)
    records = _Records(model)
    key = ranking.key
    for _ in range(runs.count):
        k = groups.advance()
        if table is not None:
            table.store(groups, k)
        if k == 0:
            key[0] = model.first_avg_bits
        else:
            previous = records.avgs[k - 1]
            key[k] = records.ranked_totals[k - 1] + math.log2(model.norm(previous))
            ranking.prev[k] = previous
        totals = ranking.rank(groups, k)
        winner = _decide(totals, groups, k, records)
        size, avg, stdev = groups.seen_stats(winner)
        records.add(winner, size, avg, stdev, float(totals[winner]))
    return _backtrack(records)


def _decide(totals: npt.NDArray[np.float64], groups: OpenGroups, k: int, records: _Records) -> int:
    """The reference's choice among group ``[k]`` alone and every ``[s, k]``.

    It keeps the first strictly cheapest in the order ``k, 0, 1, ..., k-1``.
    """
    best = int(totals.argmin())
    lowest = float(totals[best])
    margin = RELATIVE_MARGIN * (abs(lowest) + 1.0)
    threshold = lowest + 2 * margin
    totals[best] = math.inf
    runner_up = float(totals[totals.argmin()])
    totals[best] = lowest
    if runner_up > threshold:
        return best
    close = np.flatnonzero(totals <= threshold).tolist()
    order = [k, *close[:-1]] if close[-1] == k else close
    winner, record = -1, math.inf
    for start in order:
        size, avg, stdev = groups.seen_stats(start)
        total = records.exact_prefix(start) + records.model.group_bits(
            size, avg, stdev, records.prev_avg(start)
        )
        if total < record:
            winner, record = start, total
    return winner


def _backtrack(records: _Records) -> Partition:
    count = len(records.starts)
    if not count:
        return Partition((), (), (), (), 0.0)
    chosen: list[int] = []
    end = count - 1
    while end >= 0:
        chosen.append(end)
        end = records.starts[end] - 1
    chosen.reverse()
    return Partition(
        starts=tuple(records.starts[end] for end in chosen),
        sizes=tuple(records.sizes[end] for end in chosen),
        avgs=tuple(records.avgs[end] for end in chosen),
        stdevs=tuple(records.stdevs[end] for end in chosen),
        bits=records.exact_total(count - 1),
    )
