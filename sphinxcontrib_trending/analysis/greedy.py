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
from collections.abc import Callable
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


class _Ranking:
    """Per-candidate constants and scratch arrays of the fast ranking.

    Works on the same windows as :class:`OpenGroups`; entries not opened yet
    carry an infinite key, so they rank last.
    """

    def __init__(self, groups: OpenGroups, model: BitModel) -> None:
        padded = len(groups.avg)
        self.unit = model.unit
        # jump and spread are kept in raw units plus one unit, (x + u) instead
        # of (x / u + 1): the missing 1/u factors are per-size constants
        self.size_minus_two = np.arange(len(model.length_bits)) - 2.0
        log_inverse_unit = -math.log2(model.unit)
        self.size_bits = model.ranking_size_bits() + (self.size_minus_two + 1.0) * log_inverse_unit
        self.key = np.full(padded, np.inf)  # prefix bits + the average's "norm" bits
        self.prev = np.zeros(padded)  # previous group's average, raw
        self.spread = np.zeros(padded)
        self.total = np.zeros(padded)
        self.product = np.zeros(padded)
        self.window = 0

    def _set_window(self, window: int) -> None:
        self.window = window
        self._key = self.key[:window]
        self._prev = self.prev[:window]
        self._spread = self.spread[:window]
        self._total = self.total[:window]
        self._product = self.product[:window]

    def rank(self, groups: OpenGroups) -> npt.NDArray[np.float64]:
        """Approximate total bits of "record before s, then group [s, k]" over the window.

        The terms of :meth:`BitModel.ranking_bits` plus the average's, computed
        in place to keep the per-run cost at a few array operations.
        """
        if self.window != groups.window:
            self._set_window(groups.window)
        unit = self.unit
        spread, total, product = self._spread, self._total, self._product
        # the first group has no previous average: make its jump zero
        self.prev[0] = groups.avg[0]
        np.add(groups.window_stdev, unit, out=spread)
        np.subtract(groups.window_avg, self._prev, out=total)
        np.abs(total, out=total)
        total += unit
        np.add(spread, unit, out=product)
        product *= spread
        np.divide(product, total, out=total)
        np.log2(total, out=total)
        np.log2(spread, out=spread)
        sizes = groups.window_sizes()
        spread *= self.size_minus_two[sizes]
        total += spread
        total += self.size_bits[sizes]
        total += self._key
        return total


class Records:
    """The record after each run: its last group's start and stats, and its total bits.

    Totals are kept as ranked (fast logarithm); the exact totals the reference
    would hold are derived on demand along the chain of records.  Sizes and
    stdevs too are derived only when needed: most records are never looked at.
    """

    def __init__(self, model: BitModel, cumulative: npt.NDArray[np.int64]) -> None:
        self.model = model
        self.cumulative = cumulative
        self.starts: list[int] = []
        self.avgs: list[float] = []
        self.moments: list[float] = []
        self.ranked_totals: list[float] = []
        self._exact: dict[int, float] = {}

    def add(self, start: int, avg: float, moment: float, ranked_total: float) -> None:
        """Record the winner ``[start, k]``; ``moment`` is its ``S*S*n``."""
        self.starts.append(start)
        self.avgs.append(avg)
        self.moments.append(moment)
        self.ranked_totals.append(ranked_total)

    def size(self, step: int) -> int:
        return int(self.cumulative[step + 1] - self.cumulative[self.starts[step]])

    def stdev(self, step: int) -> float:
        return math.sqrt(self.moments[step] / self.size(step))

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
            return self.model.first_record_bits(self.size(0), self.avgs[0], self.stdev(0))
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
                self.size(step), self.avgs[step], self.stdev(step), self.prev_avg(start)
            )
        return self._exact[k]


def greedy_search(runs: PreparedRuns, model: BitModel) -> Partition:
    """Group the present runs exactly as jumpavg 0.4.2 does."""
    groups = OpenGroups(runs)
    ranking = _Ranking(groups, model)
    records = Records(model, groups.cumulative)
    key, prev = ranking.key, ranking.prev
    avg_seen, moment_seen = groups.avg_seen, groups.moment_seen
    for _ in range(runs.count):
        k = groups.advance()
        if k == 0:
            key[0] = model.first_avg_bits
        else:
            previous = records.avgs[k - 1]
            key[k] = records.ranked_totals[k - 1] + math.log2(model.norm(previous))
            prev[k] = previous
        totals = ranking.rank(groups)
        winner = decide(totals, k, groups.seen_stats, records)
        records.add(
            winner, float(avg_seen[winner]), float(moment_seen[winner]), float(totals[winner])
        )
    return backtrack(records)


SeenStats = Callable[[int], tuple[int, float, float]]


def decide(totals: npt.NDArray[np.float64], k: int, seen_stats: SeenStats, records: Records) -> int:
    """The reference's choice among group ``[k]`` alone and every ``[s, k]``.

    It keeps the first strictly cheapest in the order ``k, 0, 1, ..., k-1``.
    ``totals`` are the ranked totals (index ``s``, past ``k`` ignored as
    infinite); ``seen_stats(s)`` gives group ``[s, k]``'s exact statistics.
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
    return _reprice(np.flatnonzero(totals <= threshold).tolist(), k, seen_stats, records)


def _reprice(close: list[int], k: int, seen_stats: SeenStats, records: Records) -> int:
    """Decide among candidates too close for the fast ranking, with the exact formula."""
    order = [k, *close[:-1]] if close[-1] == k else close
    winner, record = -1, math.inf
    for start in order:
        size, avg, stdev = seen_stats(start)
        total = records.exact_prefix(start) + records.model.group_bits(
            size, avg, stdev, records.prev_avg(start)
        )
        if total < record:
            winner, record = start, total
    return winner


def backtrack(records: Records) -> Partition:
    """The partition the records chain to, with its exact bits."""
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
        sizes=tuple(records.size(end) for end in chosen),
        avgs=tuple(records.avgs[end] for end in chosen),
        stdevs=tuple(records.stdev(end) for end in chosen),
        bits=records.exact_total(count - 1),
    )
