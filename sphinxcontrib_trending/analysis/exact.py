"""``search="exact"``: the partition with the fewest bits, in near-linear time.

A group's bits depend on the previous group's average, so the dynamic
programme's state is a pair: ``best[j, e]``, the fewest bits of runs ``0..e``
whose last group is ``[j, e]``::

    best[j, e] = base(j, e) + min over predecessors i of
                 best[i, j-1] + L(p_i) - log2(|a(j, e) - p_i| + 1)

with ``p_i`` the average of ``[i, j-1]`` and ``L(p) = log2(norm(p))``.  Done
naively that is cubic.  Two rules, both proved in
``docs/methodology/grouping.rst`` ("How the exact search works"), drop every
state and transition that no optimal partition uses:

* *Predecessors.* When group ``j`` opens, predecessor ``i`` is dropped if
  another ``i'`` is cheaper for every average ``a`` the group could ever take:
  ``U_i - U_i' > log2(|p_i - p_i'| + 1)`` with ``U = best + L(p)``.  The set
  is fixed from then on, so ``best[j, e]`` needs only its survivors.
* *Starts* (PELT).  Start ``j`` is never again the start of a group ending
  after run ``e`` once ``best[j, e] - min_j' best[j', e]`` exceeds
  ``theta(n, q)`` (:meth:`ExactSearch.split_bound`): splitting at ``e`` and
  taking the best prefix is then strictly cheaper, whatever follows.

Each run updates the statistics of the surviving starts (a few numpy
operations over a short array), so the search is near-linear in the length
of a history with changes, and its state is small, picklable and can be
extended with later runs (:meth:`ExactSearch.extend`) for the same result as
a fresh search.

Candidates are ranked with numpy's fast logarithm; the partition found is then
priced with the reference's exact formula and statistics, so its bits are
comparable with ``search="jumpavg"``'s to the last digit.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.bits import BitModel
from sphinxcontrib_trending.analysis.greedy import Partition
from sphinxcontrib_trending.analysis.runs import PreparedRuns

FloatArray = npt.NDArray[np.float64]

GAUSS_BITS_PER_TRIAL = 0.5 * math.log2(2 * math.pi * math.e)
"""The limit of ``c(n + 1) - c(n)`` (see :func:`size_costs`); every step is above it."""

# Rankings use another logarithm and summation order than the exact formula:
# pruning keeps everything within this (relative) of a rule's bound.
RELATIVE_SLACK = 1e-9


def size_costs(model: BitModel) -> FloatArray:
    """``c(n)``: the bits of a group of ``n`` trials that depend on ``n`` only.

    A group's bits are ``c(n) + n*log2(s+1) + log2((s+2)/(s+1))`` plus its
    average's; ``c(1) = 0``.  This is :meth:`BitModel.ranking_size_bits`.
    """
    return model.ranking_size_bits()


def seen_stats(
    sizes: FloatArray, avgs: FloatArray, stdevs: FloatArray, start: int, stop: int
) -> tuple[int, float, float]:
    """(size, avg, stdev) of runs ``[start, stop)`` as the reference's merge derives them.

    The same Chan/Welford merge, in the same order of operations, as
    :class:`~.open_groups.OpenGroups`: the exact bits of the partition found
    are those ``search="jumpavg"`` would count for it.
    """
    size = float(sizes[start])
    avg = float(avgs[start])
    stdev = float(stdevs[start])
    avg = avg * size / size
    stdev = math.sqrt(stdev * stdev * size / size)
    avg_seen = avg * size / size
    moment = stdev * stdev * size
    total = size
    for run in range(start + 1, stop):
        size = float(sizes[run])
        new_total = total + size
        delta = float(avgs[run]) - avg_seen
        work = delta * delta * total * size
        new_avg = avg_seen + delta * size / new_total
        run_stdev = float(stdevs[run])
        moment = moment + run_stdev * run_stdev * size
        stdev = math.sqrt((moment + work / new_total) / new_total)
        avg_seen = new_avg * new_total / new_total
        moment = stdev * stdev * new_total
        total = new_total
    return int(total), avg_seen, math.sqrt(moment / total)


class _Column:
    """A growable 1-D array of floats: :meth:`view` gives the filled part."""

    def __init__(self) -> None:
        self.data = np.zeros(64)
        self.used = 0

    def extend(self, values: FloatArray) -> None:
        need = self.used + len(values)
        if need > len(self.data):
            grown = np.zeros(max(need, 2 * len(self.data)))
            grown[: self.used] = self.data[: self.used]
            self.data = grown
        self.data[self.used : need] = values
        self.used = need

    def view(self) -> FloatArray:
        return self.data[: self.used]


# rows of ExactSearch._groups: per surviving start, its group's statistics
TRIALS, MEAN, SPREAD, START = range(4)
# rows of ExactSearch._pairs: per predecessor of a surviving start
KEY, PREV = range(2)


class ExactSearch:
    """The exact search's state after the runs seen so far; extend it run by run.

    Picklable; :meth:`partition` can be read after any :meth:`extend`.  The
    model fixes the largest value and the unit: a run above the model's largest
    value changes every bit count, and needs a new search (the caller's job,
    see :class:`~.incremental.IncrementalClassifier`).

    The surviving starts live in the columns of a few preallocated arrays (one
    numpy call updates a statistic of all of them); statistics are kept in
    units, ``SPREAD`` being the sum of squared deviations.
    """

    def __init__(self, model: BitModel) -> None:
        self.model = model
        self._tables(model)
        big_m = model.max_in_units
        # L(p) = log2((p - M/2)^2 + M^2/4 + M) over p in [0, M]
        self._half_m = big_m / 2.0
        self._norm_floor = big_m * big_m / 4.0 + big_m
        norm_span = math.log2(big_m * big_m / 2.0 + big_m) - math.log2(self._norm_floor)
        # theta without its L(q) and size terms: see split_bound
        self._theta_base = 2.0 * math.log2(1.0 + big_m / 2.0) + norm_span + 2.0
        # the runs, for the exact statistics of the groups found
        self._run_sizes = _Column()
        self._run_avgs = _Column()
        self._run_stdevs = _Column()
        self._trials = 0
        self._count = 0  # surviving starts
        self._pair_count = 0
        self._allocate(64, 64)
        self._best = np.zeros(0)  # best[j, e] of the survivors at the last run e
        self._doomed: npt.NDArray[np.bool_] | None = None  # survivors to drop at the next run
        # predecessors of the next start to open: (from, key, prev)
        self._pending: tuple[list[int], list[float], list[float]] = (
            [-1],
            [model.first_avg_bits],
            [0.0],
        )
        # every start's predecessors as it opened, for the backtrack
        self._history_begin: list[int] = []
        self._history_from: list[int] = []
        self._history_key: list[float] = []
        self._history_prev: list[float] = []

    def _tables(self, model: BitModel) -> None:
        self._size_bits = size_costs(model)
        sizes = np.arange(len(self._size_bits), dtype=np.float64)
        self._size_theta = self._size_bits - sizes * GAUSS_BITS_PER_TRIAL

    def _allocate(self, groups: int, pairs: int) -> None:
        """(Re)allocate the survivors' arrays for at least this many entries."""
        count, pair_count = self._count, self._pair_count
        old = getattr(self, "_groups", None)
        self._groups = np.zeros((4, groups))
        self._trial_counts = np.zeros(groups, dtype=np.int64)
        self._logs = np.ones((4, groups))  # scratch for one np.log2 call per run
        self._pairs = np.zeros((2, pairs))
        self._owner = np.zeros(pairs, dtype=np.int64)
        self._begin = np.zeros(groups, dtype=np.int64)
        if old is not None:
            self._groups[:, :count] = old[:, :count]
            self._trial_counts[:count] = self._old_trial_counts[:count]
            self._pairs[:, :pair_count] = self._old_pairs[:, :pair_count]
            self._owner[:pair_count] = self._old_owner[:pair_count]
            self._begin[:count] = self._old_begin[:count]

    def _grow(self, groups: int, pairs: int) -> None:
        self._old_trial_counts = self._trial_counts
        self._old_pairs, self._old_owner, self._old_begin = self._pairs, self._owner, self._begin
        self._allocate(groups, pairs)
        del self._old_trial_counts, self._old_pairs, self._old_owner, self._old_begin

    @property
    def count(self) -> int:
        """Runs seen so far."""
        return self._run_sizes.used

    def extend(self, runs: PreparedRuns) -> None:
        """Add the present runs of ``runs`` after those seen so far."""
        if runs.count and runs.max_value > self.model.max_value:
            raise ValueError("a run exceeds the model's largest value: start a new search")
        total = self._trials + int(runs.sizes.sum())
        if total >= len(self._size_bits):
            model = self.model
            self.model = BitModel(model.max_value, model.unit, max(total, 2 * len(self._size_bits)))
            self._tables(self.model)
        self._run_sizes.extend(runs.sizes.astype(np.float64))
        self._run_avgs.extend(runs.avgs)
        self._run_stdevs.extend(runs.stdevs)
        self._trials = total
        first = self.count - runs.count
        unit = self.model.unit
        for offset, (size, avg, stdev) in enumerate(
            zip(runs.sizes.tolist(), runs.avgs.tolist(), runs.stdevs.tolist(), strict=True)
        ):
            self._advance(first + offset, size, avg / unit, stdev / unit)

    def _advance(self, run: int, size: int, avg: float, stdev: float) -> None:
        """Merge run ``run`` (statistics in units) into every survivor; open a group for it."""
        if self._doomed is not None:
            self._drop(self._doomed)
            self._doomed = None
        count = self._count
        froms, keys, prevs = self._pending
        pair_count = self._pair_count + len(keys)
        if count + 1 > len(self._begin) or pair_count > len(self._owner):
            self._grow(2 * (count + 1), 2 * pair_count)
        groups = self._groups
        if count:
            # Welford/Chan: the run's trials join every surviving group
            trials, mean, spread = groups[TRIALS:START, :count]
            delta = avg - mean
            trials += size
            step = np.divide(delta, trials)
            if size != 1:
                step *= size
            mean += step
            np.subtract(avg, mean, out=step)
            step *= delta
            if size != 1:
                step *= size
            spread += step
            if stdev:
                spread += stdev * stdev * size
            self._trial_counts[:count] += size
        groups[:, count] = (size, avg, stdev * stdev * size, run)
        self._trial_counts[count] = size
        self._begin[count] = self._pair_count
        self._pairs[KEY, self._pair_count : pair_count] = keys
        self._pairs[PREV, self._pair_count : pair_count] = prevs
        self._owner[self._pair_count : pair_count] = count
        self._history_begin.append(len(self._history_from))
        self._history_from.extend(froms)
        self._history_key.extend(keys)
        self._history_prev.extend(prevs)
        count += 1
        self._count, self._pair_count = count, pair_count
        if groups[START, 0] == 0.0:
            self._pairs[PREV, 0] = groups[MEAN, 0]  # the first group has no jump
        best, norm_bits = self._group_bits()
        self._best = best
        lowest = int(best.argmin())
        norm_of_lowest = float(norm_bits[lowest])
        norm_bits += best
        self._pending = self._predecessors(norm_bits)
        self._doomed = self._to_prune(best, lowest, norm_of_lowest)

    def _group_bits(self) -> tuple[FloatArray, FloatArray]:
        """``best[j, e]`` of every survivor ``j`` at the current run ``e``, and ``L(a_j)``.

        A group's bits without its average's are
        ``c(n) + (n-1) log2(s+1) + log2(s+2)``; every logarithm of the run is
        taken in one call on the rows of a scratch array.
        """
        count = self._count
        groups = self._groups
        trials, mean = groups[TRIALS, :count], groups[MEAN, :count]
        logs = self._logs[:, :count]
        single = self._pair_count == count  # one predecessor each
        spread_plus_one, spread_plus_two, jump, norm = logs
        np.divide(groups[SPREAD, :count], trials, out=spread_plus_one)
        np.sqrt(spread_plus_one, out=spread_plus_one)
        spread_plus_one += 1.0
        np.add(spread_plus_one, 1.0, out=spread_plus_two)
        prev = self._pairs[PREV, : self._pair_count]
        if single:
            np.subtract(mean, prev, out=jump)
            np.abs(jump, out=jump)
            jump += 1.0
        else:
            jump.fill(1.0)
        np.subtract(mean, self._half_m, out=norm)
        norm *= norm
        norm += self._norm_floor
        np.log2(logs, out=logs)
        bits = trials - 1.0
        bits *= spread_plus_one
        bits += spread_plus_two
        bits += self._size_bits[self._trial_counts[:count]]
        keys = self._pairs[KEY, : self._pair_count]
        if single:
            bits += keys
            bits -= jump
        else:
            jumps = mean[self._owner[: self._pair_count]] - prev
            np.abs(jumps, out=jumps)
            jumps += 1.0
            np.log2(jumps, out=jumps)
            np.subtract(keys, jumps, out=jumps)
            bits += np.minimum.reduceat(jumps, self._begin[:count])
        return bits, norm.copy()

    def _predecessors(self, keys: FloatArray) -> tuple[list[int], list[float], list[float]]:
        """The states ``(i, e)`` the next group may follow: all but the dominated.

        ``i`` is dominated by ``i'`` if ``U_i - U_i' > log2(|p_i - p_i'| + 1)``
        (``keys`` are the ``U``); testing against the cheapest ``U`` alone
        keeps a few extra, never too few.
        """
        cheapest = int(keys.argmin())
        lowest = float(keys[cheapest])
        slack = RELATIVE_SLACK * (abs(lowest) + 1.0)
        near = np.flatnonzero(keys <= lowest + self._theta_base + slack)
        groups = self._groups
        if len(near) == 1:
            return [int(groups[START, cheapest])], [lowest], [float(groups[MEAN, cheapest])]
        avgs = groups[MEAN, near]
        bound = np.abs(avgs - groups[MEAN, cheapest])
        bound += 1.0
        np.log2(bound, out=bound)
        bound += lowest + slack
        kept = keys[near] <= bound
        return (
            groups[START, near[kept]].astype(np.int64).tolist(),
            keys[near[kept]].tolist(),
            avgs[kept].tolist(),
        )

    def split_bound(self, trials: int, prev_avg: float) -> float:
        """``theta(n, q)``: the most a start may lie above the best and still be needed.

        ``L(q) + 2 log2(1 + M/2) + (L_max - L_min) + 2 + c(n) - n/2 log2(2 pi e)``
        for a last group of ``n`` trials, ``q`` (in units) the last average of
        the best partition so far; the methodology's proof derives it.
        """
        centred = prev_avg - self._half_m
        norm_bits = math.log2(centred * centred + self._norm_floor)
        return float(self._size_theta[trials]) + norm_bits + self._theta_base

    @property
    def survivors(self) -> int:
        """Starts the search still extends: what its time per run grows with."""
        return self._count

    def _to_prune(
        self, best: FloatArray, lowest: int, norm_of_lowest: float
    ) -> npt.NDArray[np.bool_] | None:
        """Which survivors to keep for the runs to come: None if all.

        A start that fails the rule is still the last group of a partition of
        the runs so far, so it is dropped only when the next run arrives.
        """
        floor = float(best[lowest])
        # split_bound for every survivor at once
        limit = self._size_theta[self._trial_counts[: self._count]]
        limit += norm_of_lowest + self._theta_base + floor + RELATIVE_SLACK * (abs(floor) + 1.0)
        keep = best <= limit
        return None if keep.all() else keep

    def _drop(self, keep: npt.NDArray[np.bool_]) -> None:
        """Forget the survivors not kept, and their predecessors."""
        count, pair_count = self._count, self._pair_count
        counts = np.diff(np.append(self._begin[:count], pair_count))
        pair_keep = np.repeat(keep, counts)
        counts = counts[keep]
        self._count = kept = len(counts)
        self._groups[:, :kept] = self._groups[:, :count][:, keep]
        self._trial_counts[:kept] = self._trial_counts[:count][keep]
        self._pair_count = pairs_kept = int(counts.sum())
        self._pairs[:, :pairs_kept] = self._pairs[:, :pair_count][:, pair_keep]
        self._begin[:kept] = np.cumsum(counts) - counts
        self._owner[:pairs_kept] = np.repeat(np.arange(kept), counts)
        self._best = self._best[keep]

    def partition(self) -> Partition:
        """The fewest-bits partition of the runs seen so far, priced exactly."""
        if not self.count:
            return Partition((), (), (), (), 0.0)
        best = self._best
        floor = float(best.min())
        close = np.flatnonzero(best <= floor + RELATIVE_SLACK * (abs(floor) + 1.0))
        found = [self.price(self._backtrack(int(index))) for index in close]
        return min(found, key=lambda partition: partition.bits)

    def _backtrack(self, index: int) -> tuple[int, ...]:
        """Group starts of the best partition whose last group is survivor ``index``'s."""
        start = int(self._groups[START, index])
        avg = float(self._groups[MEAN, index])
        begins, froms = self._history_begin, self._history_from
        keys, prevs = self._history_key, self._history_prev
        starts = [start]
        while start:
            low = begins[start]
            high = begins[start + 1] if start + 1 < len(begins) else len(froms)
            costs = [keys[i] - math.log2(abs(avg - prevs[i]) + 1.0) for i in range(low, high)]
            chosen = low + costs.index(min(costs))
            start, avg = froms[chosen], prevs[chosen]
            starts.append(start)
        return tuple(reversed(starts))

    def price(self, starts: tuple[int, ...]) -> Partition:
        """Any partition of the runs seen so far (by its group starts), priced exactly."""
        sizes, avgs, stdevs = (
            self._run_sizes.view(),
            self._run_avgs.view(),
            self._run_stdevs.view(),
        )
        stats = [
            seen_stats(sizes, avgs, stdevs, start, stop)
            for start, stop in zip(starts, (*starts[1:], self.count), strict=True)
        ]
        return Partition(
            starts=starts,
            sizes=tuple(size for size, _, _ in stats),
            avgs=tuple(avg for _, avg, _ in stats),
            stdevs=tuple(stdev for _, _, stdev in stats),
            bits=self.model.partition_bits(starts, stats),
        )


def exact_search(runs: PreparedRuns, model: BitModel) -> Partition:
    """The minimum-bits partition of the present runs."""
    search = ExactSearch(model)
    search.extend(runs)
    return search.partition()
