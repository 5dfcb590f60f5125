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

The search advances a block of up to :data:`MAX_BLOCK` runs at a time (more
with thousands of survivors, :meth:`ExactSearch._longest`;
:meth:`ExactSearch._advance_block`): a compiled loop (:mod:`.exact_kernels`)
extends the surviving starts over the whole block, and another takes the
groups opened inside it in order, each choosing its predecessors among the
states at the run before it (the survivors' and those of the block's
earlier groups), as a search run by run would.  A survivor that no
group opened in the block can take as predecessor (a lower bound on its
states, :meth:`ExactSearch._near`) is extended to the block's last run only:
on a stable level that is most of them.  It is near-linear in the length of
a history with changes, and its state is small, picklable and can be
extended with later runs (:meth:`ExactSearch.extend`) for the same optimum
as a fresh search.

Candidates are ranked with the C library's logarithm in the compiled loops and
numpy's elsewhere (each rule leaves a relative slack for their last-bit
differences, :data:`RELATIVE_SLACK`); the partition found is then priced
with the reference's exact formula and statistics (:class:`GroupPass`), so
its bits are those the reference counts for the same groups, to the last
digit.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.bits import BitModel, perturb
from sphinxcontrib_trending.analysis.greedy import Partition
from sphinxcontrib_trending.analysis.runs import PreparedRuns
from sphinxcontrib_trending.analysis.saved_search import SavedSearch

FloatArray = npt.NDArray[np.float64]


@functools.cache
def _kernels() -> ModuleType:
    """The compiled inner loops, loaded when a search first runs (:mod:`.exact_loading`).

    Importing numba and loading the compiled code costs a process about half a
    second: a build whose groupings all come from the cache never pays it.
    Cached: ``check --all`` asks for them a few times per run it judges, and
    an import statement costs microseconds even when the module is loaded.
    """
    from sphinxcontrib_trending.analysis.exact_loading import compiled_loops

    return compiled_loops()


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


@dataclass
class GroupPass:
    """Statistics of runs ``[start, stop)`` as the reference derives a whole group's.

    One Welford/Chan pass over the group's runs, in the operation order of the
    reference's ``AvgStdevStats.for_runs`` (what its ``BitCountingGroupList``
    computes for a group given whole).  Unlike the run-by-run merges of its
    search (see :class:`~.open_groups.OpenGroups`), which re-derive the average
    as ``avg * n / n`` after every run, this pass never moves the average off a
    repeated value: runs of identical values get exactly their value and zero
    stdev, however many there are.  With a fine unit (``sbps=24``) the
    search's accumulated last-bit noise is worth a billionth of the bits.

    The pass can go on (:meth:`advance`): a group that grew by a run at the
    end costs one more step, not a new pass.
    """

    start: int
    stop: int = 0
    total: float = 0.0
    avg: float = 0.0
    moment: float = 0.0

    def advance(
        self, sizes: npt.NDArray[np.int64], avgs: FloatArray, stdevs: FloatArray, stop: int
    ) -> None:
        """Take in the runs up to ``stop`` (exclusive)."""
        first = max(self.start, self.stop)
        total, avg, moment = _kernels().welford_pass(
            sizes, avgs, stdevs, first, stop, self.total, self.avg, self.moment
        )
        self.stop, self.total, self.avg, self.moment = stop, total, avg, moment

    @property
    def stats(self) -> tuple[int, float, float]:
        """(size, avg, stdev)."""
        return int(self.total), self.avg, math.sqrt(self.moment / self.total)


MIN_ROOM = 64
"""Values a :class:`_Column` makes room for at least when it grows."""


class _Column:
    """A growable 1-D array (of floats unless told): :meth:`view` gives the filled part.

    Eight bytes a value: the backtrack's per-start lists of a 20,000-run
    history took 3.4 MiB as Python lists and take 0.8 MiB so.
    """

    def __init__(
        self, dtype: type[np.generic] = np.float64, values: npt.NDArray[Any] | None = None
    ) -> None:
        """Empty, or a copy of ``values`` with room for half as many again: a resumed
        search's columns are made once, not made empty and then grown to hold them."""
        if values is None:
            self.data, self.used = np.zeros(0, dtype=dtype), 0
        else:
            self.used = len(values)
            self.data = np.zeros(max(self.used * 3 // 2, MIN_ROOM), dtype=dtype)
            self.data[: self.used] = values

    def share(self, values: npt.NDArray[Any]) -> None:
        """:meth:`extend`, but an empty column holds ``values`` themselves, not a copy.

        For the caller's runs: a one-off search keeps no second copy of them.
        They are never written to, since the column is then full: more values
        copy them first.
        """
        if self.used:
            self.extend(values)
        else:
            self.data, self.used = values, len(values)

    def extend(self, values: npt.NDArray[Any]) -> None:
        need = self.used + len(values)
        self.reserve(need)
        self.data[self.used : need] = values
        self.used = need

    def reserve(self, size: int) -> None:
        """Make room for ``size`` values in all (half as many again at least, so a
        column grown value by value is copied a bounded number of times per value)."""
        if size > len(self.data):
            room = max(size, len(self.data) * 3 // 2, MIN_ROOM)
            grown = np.zeros(room, dtype=self.data.dtype)
            grown[: self.used] = self.data[: self.used]
            self.data = grown

    def view(self) -> npt.NDArray[Any]:
        return self.data[: self.used]


_NO_TABLE: FloatArray = np.zeros(0)
"""An :class:`ExactSearch`'s size table before it is made (see ExactSearch._size_table)."""

# runs advanced together (see ExactSearch._advance_block)
MIN_BLOCK, MAX_BLOCK = 4, 48
LONGEST_BLOCK = 192  # with thousands of survivors, most of them far (see ExactSearch._longest)
# near survivors x runs of a block's 2-D arrays, at most (but two runs at least):
# a history that keeps thousands of starts near the cheapest advances in fewer
# runs at a time, so its arrays stay a few hundred KiB instead of growing with it
BLOCK_AREA = 1 << 13
# survivors from which a block computes the far ones at its last run only (see
# ExactSearch._near), and the relative margin that test leaves for rounding
NEAR_MIN_SURVIVORS = 64
NEAR_MARGIN = 1e-6

Pending = tuple[npt.NDArray[np.int64], FloatArray, FloatArray]
"""Predecessors of the next group to open: their starts, keys and averages."""

Survivors = npt.NDArray[np.intp] | None
"""Which survivors: their indices, or None for all."""

# rows of ExactSearch._groups: per surviving start, its group's statistics and best
TRIALS, MEAN, SPREAD, START, BEST = range(5)


class _Inside:
    """Statistics of every group that starts and ends inside one block: arrays [end, start].

    Entries with ``start > end`` are not groups and hold harmless values (one
    trial, zero spread and bits).  ``bits`` are a group's bits but its
    average's (``c(n) + (n-1) log2(s+1) + log2(s+2)``), ``norm`` ``L`` of its
    mean.  Trial counts come from ``cumulative``, the trials before each run:
    a group's is a difference of two, so no [end, start] array holds them.
    """

    def __init__(
        self,
        search: ExactSearch,
        sizes: npt.NDArray[np.int64],
        avgs: FloatArray,
        stdevs: FloatArray,
    ) -> None:
        groups = _kernels().inside_groups(
            sizes, avgs, stdevs, search._size_bits, search._half_m, search._norm_floor
        )
        self.cumulative, self.mean, self.spread, self.bits, self.norm = groups

    @functools.cached_property
    def prefix_mean(self) -> FloatArray:
        """Means of the groups that start at the block's first run, by their end."""
        return np.ascontiguousarray(self.mean[:, 0])

    @functools.cached_property
    def prefix_spread(self) -> FloatArray:
        """Spreads of the groups that start at the block's first run, by their end."""
        return np.ascontiguousarray(self.spread[:, 0])

    def trials_from_first(self) -> npt.NDArray[np.int64]:
        """Trials of the groups that start at the block's first run, by their end."""
        return self.cumulative[1:]


@dataclass
class _Extended:
    """Survivors' groups extended by prefixes of a block: arrays [survivor, end].

    ``which`` are the survivors' indices (None: all of them, in order).
    """

    trials: FloatArray
    mean: FloatArray
    spread: FloatArray
    best: FloatArray
    keys: FloatArray  # U = best + L(mean)
    which: Survivors = None


class _Block(NamedTuple):
    """What one block did: runs taken, and with ``each`` the states after each of them."""

    taken: int
    ends: list[tuple[FloatArray, FloatArray, npt.NDArray[np.int64]]] | None


class _Pairs(NamedTuple):
    """Predecessors of the groups opened in a block, grouped by the group's start."""

    owner: npt.NDArray[np.int64]  # the group's start, relative to the block
    froms: npt.NDArray[np.int64]
    keys: FloatArray
    prevs: FloatArray
    begins: npt.NDArray[np.int64]  # per start: where its predecessors begin


class ExactSearch:
    """The exact search's state after the runs seen so far; extend it run by run.

    Picklable; :meth:`partition` can be read after any :meth:`extend`.  The
    model fixes the largest value and the unit: a run above the model's largest
    value changes every bit count, and needs a new search (the caller's job,
    see :class:`~.incremental.IncrementalClassifier`).

    The surviving starts live in the columns of one preallocated array (one
    numpy call updates a statistic of all of them); statistics are kept in
    units, ``SPREAD`` being the sum of squared deviations.  A survivor's
    predecessors are those the history holds for its start.
    """

    def __init__(self, model: BitModel, saved: SavedSearch | None = None) -> None:
        """A search of no runs yet, or with the state ``saved`` (already checked, see
        :meth:`resume`) but its runs, made at once instead of empty and then replaced."""
        self.model = model
        # made on first use (_size_table): a resumed search that grows its model at
        # once would otherwise make them twice, a tenth of extending it by a run
        self._size_bits: FloatArray = _NO_TABLE
        big_m = model.max_in_units
        # L(p) = log2((p - M/2)^2 + M^2/4 + M) over p in [0, M]
        self._half_m = big_m / 2.0
        self._norm_floor = big_m * big_m / 4.0 + big_m
        norm_span = math.log2(big_m * big_m / 2.0 + big_m) - math.log2(self._norm_floor)
        # theta without its L(q) and size terms: see split_bound
        self._theta_base = 2.0 * math.log2(1.0 + big_m / 2.0) + norm_span + 2.0
        self._widest_jump = math.log2(big_m + 1.0)
        # the runs, for the exact statistics of the groups found
        self._run_sizes = _Column(np.int64)
        self._run_avgs = _Column()
        self._run_stdevs = _Column()
        self._passes: dict[int, GroupPass] = {}  # by group start, for price
        # each group's bits as the last price counted them, by (size, avg, stdev, previous
        # average): a longer prefix mostly repeats every group but its last one
        self._priced: dict[tuple[int, float, float, float | None], float] = {}
        self._near_count = 0  # survivors the last block extended over all its runs
        if saved is None:
            self._trials = 0
            self._count = 0  # surviving starts
            self._block = MAX_BLOCK  # runs the next block tries to take
            self._groups = np.zeros((BEST + 1, 64))
            self._doomed: npt.NDArray[np.bool_] | None = None  # survivors to drop at next run
            # predecessors of the next start to open: (from, key, prev)
            self._pending: Pending = (
                np.array([-1], dtype=np.int64),
                np.array([model.first_avg_bits]),
                np.array([0.0]),
            )
            # every start's predecessors as it opened: the survivors' for the search (see
            # exact_kernels.predecessors), everyone's for the backtrack
            self._history_begin = _Column(np.int64)
            self._history_from = _Column(np.int64)
            self._history_key = _Column()
            self._history_prev = _Column()
            return
        self._trials = saved.trials
        count = self._count = len(saved.best)
        self._block = min(max(saved.block, MIN_BLOCK), LONGEST_BLOCK)
        self._groups = np.zeros((BEST + 1, max(64, 2 * count)))
        self._groups[:BEST, :count] = saved.groups
        self._groups[BEST, :count] = saved.best
        self._doomed = saved.doomed == 0 if saved.doomed.any() else None
        # a state's arrays are its own (:meth:`.SavedSearch.from_bytes`): read, never written
        self._pending = (saved.pending_from, saved.pending_key, saved.pending_prev)
        self._history_begin = _Column(np.int64, saved.history_begin)
        self._history_from = _Column(np.int64, saved.history_from)
        self._history_key = _Column(np.float64, saved.history_key)
        self._history_prev = _Column(np.float64, saved.history_prev)

    def _size_table(self) -> FloatArray:
        """:func:`size_costs` of the model, made the first time it is asked for."""
        if not len(self._size_bits):
            self._size_bits = size_costs(self.model)
            self.__dict__.pop("_least_step", None)
        return self._size_bits

    @functools.cached_property
    def _least_step(self) -> float:
        """``c(n + k) - c(n) >= k *`` this, for ``n >= 1`` (see :meth:`_near`): of the size
        table in use, found where a block first asks (few do: a search of few survivors
        never does)."""
        return float(np.diff(self._size_table()[1:]).min())

    def _grow(self, groups: int) -> None:
        """Room for ``groups`` survivors, those there kept as they are."""
        grown = np.zeros((BEST + 1, groups))
        grown[:, : self._count] = self._groups[:, : self._count]
        self._groups = grown

    def save(self, copy: bool = True) -> SavedSearch:
        """The state to go on from later (:meth:`resume`), without the runs.

        ``copy=False`` gives views of this search's arrays instead of copies:
        for a caller that encodes the state (:meth:`.SavedSearch.to_bytes`)
        before the search goes on, as a worker does once per series.
        """
        count = self._count
        doomed = np.zeros(count, dtype=np.int64)
        if self._doomed is not None:
            doomed[~self._doomed] = 1
        kept: Callable[[npt.NDArray[Any]], npt.NDArray[Any]] = (
            np.copy if copy else lambda array: array
        )
        pending_from, pending_key, pending_prev = self._pending
        return SavedSearch.assembled(
            {
                "runs": self.count,
                "trials": self._trials,
                "max_value": self.model.max_value,
                "unit": self.model.unit,
                "table_size": len(self.model.length_bits),
                "block": self._block,
                "groups": kept(self._groups[:BEST, :count]),
                "best": kept(self._groups[BEST, :count]),
                "doomed": doomed,
                "pending_from": kept(pending_from),
                "pending_key": kept(pending_key),
                "pending_prev": kept(pending_prev),
                "history_begin": kept(self._history_begin.view()),
                "history_from": kept(self._history_from.view()),
                "history_key": kept(self._history_key.view()),
                "history_prev": kept(self._history_prev.view()),
            }
        )

    @classmethod
    def resume(cls, saved: SavedSearch, runs: PreparedRuns, trials: int = 0) -> ExactSearch:
        """The search :meth:`save` saved, over ``runs``: the present runs it had seen.

        ``trials``, the trials it will have once extended where the caller knows
        them, sizes its model for them at once: as :meth:`extend` would grow it,
        so that a series extended by a run makes one model, not two.  Raises
        ``ValueError`` when ``runs`` are not what the state describes (another
        count, trial total or largest value).
        """
        saved.check()
        if (
            runs.count != saved.runs
            or int(runs.sizes.sum()) != saved.trials
            or runs.max_value > saved.max_value
        ):
            raise ValueError("the saved search describes other runs")
        size = saved.table_size
        largest = max(trials, 2 * size) if trials >= size else size - 1
        search = cls(BitModel(saved.max_value, saved.unit, largest), saved)
        search._keep_runs(runs)
        return search

    @property
    def count(self) -> int:
        """Runs seen so far."""
        return self._run_sizes.used

    def extend(self, runs: PreparedRuns) -> None:
        """Add the present runs of ``runs`` after those seen so far."""
        for _ in self._advance(runs, each=False):
            pass

    def extend_each(self, runs: PreparedRuns) -> Iterator[Callable[[], Partition]]:
        """Add the present runs of ``runs``, yielding after each how to get the partition.

        Each function gives :meth:`partition` as it was after that run (and
        stays valid while this search lives), but the runs are still searched
        in blocks: judging every prefix of a history (``check --all``) costs
        one pass, not one search step per run, and a prefix nobody asks for
        is never backtracked nor priced.
        """
        yield from self._advance(runs, each=True)

    def _keep_runs(self, runs: PreparedRuns) -> None:
        """Keep the runs for pricing: the caller's arrays, if they are the first."""
        self._run_sizes.share(np.asarray(runs.sizes, dtype=np.int64))
        self._run_avgs.share(np.asarray(runs.avgs, dtype=np.float64))
        self._run_stdevs.share(np.asarray(runs.stdevs, dtype=np.float64))

    def _advance(self, runs: PreparedRuns, each: bool) -> Iterator[Callable[[], Partition]]:
        if runs.count and runs.max_value > self.model.max_value:
            raise ValueError("a run exceeds the model's largest value: start a new search")
        total = self._trials + int(runs.sizes.sum())
        size = len(self.model.length_bits)
        if total >= size:
            model = self.model
            self.model = BitModel(model.max_value, model.unit, max(total, 2 * size))
            self._size_bits = _NO_TABLE
        self._size_table()  # what the blocks below read as self._size_bits
        self._keep_runs(runs)
        self._trials = total
        first = self.count - runs.count
        self._history_begin.reserve(self.count)  # one entry per start
        unit = self.model.unit
        sizes = np.asarray(runs.sizes, dtype=np.int64)
        done = 0
        while done < runs.count:
            # two runs at least: a block of one run never learns that fewer are near again
            width = min(self._block, max(2, BLOCK_AREA // max(self._near_count, 1)))
            stop = min(done + width, runs.count)
            # in units block by block: no copy of the whole history in units
            block = self._advance_block(
                first + done,
                sizes[done:stop],
                runs.avgs[done:stop] / unit,
                runs.stdevs[done:stop] / unit,
                each,
            )
            if block.ends is not None:
                for end, (best, means, starts) in enumerate(block.ends):
                    yield functools.partial(
                        self._best_of, best, means, starts, first + done + end + 1
                    )
            taken = block.taken
            done += taken
            # a block narrowed because more survivors were near: start smaller, grow
            # while fewer are
            cut = taken < stop - done + taken
            grown = min(self._longest(), 2 * self._block)
            self._block = max(MIN_BLOCK, 2 * taken) if cut else grown

    def _longest(self) -> int:
        """The most runs a block may take: longer where many survivors are far.

        A block costs about one step per survivor (their last column, their
        bounds), plus one per near survivor and run, plus the block's own
        groups, runs squared.  Per run that is least near the square root
        of the survivors.
        """
        return min(LONGEST_BLOCK, max(MAX_BLOCK, math.isqrt(self._count)))

    def _advance_block(
        self,
        first: int,
        sizes: npt.NDArray[np.int64],
        avgs: FloatArray,
        stdevs: FloatArray,
        each: bool = False,
    ) -> _Block:
        """Advance the search over up to ``len(sizes)`` runs at once: how many it took.

        With ``each``, also the last-group candidates after each run taken.

        The groups opened inside a block depend on each other only through
        their predecessors: group ``t``'s are the states not dominated at run
        ``t - 1``, which include the groups opened before ``t``.  One compiled
        loop takes them in order (:meth:`_open_groups`), so each chooses from
        states already final, as a search run by run would; the next block's
        first group gets its predecessors as at any block's end.  A block
        takes all its runs but where more survivors are near than its arrays
        may hold (:data:`BLOCK_AREA`).
        """
        if self._doomed is not None:
            self._drop(self._doomed)
            self._doomed = None
        if not self._count:
            sizes, avgs, stdevs = sizes[:1], avgs[:1], stdevs[:1]
        length = len(sizes)
        survivors = self._count + length
        if survivors > self._groups.shape[1]:
            # room for the block's starts before its arrays are made, so that the old
            # and new survivors' arrays are never held beside them; half as much again,
            # but never past one survivor per run seen: a history that keeps every
            # start (no change) would otherwise hold room it cannot use
            self._grow(min(survivors * 3 // 2, max(survivors, self.count)))
        if self._count and not each and (length == 1 or self._count < NEAR_MIN_SURVIVORS):
            # every survivor is extended over the block (_near says so without looking)
            fit = max(2, BLOCK_AREA // self._count)
            sizes, avgs, stdevs = sizes[:fit], avgs[:fit], stdevs[:fit]
            if len(sizes) > 1:  # a block of one run tells nothing of how many are near
                self._near_count = self._count
            self._advance_all(first, sizes, avgs, stdevs)
            return _Block(len(sizes), None)
        inside = _Inside(self, sizes, avgs, stdevs)  # groups within the block: [end, start]
        near = self._near(inside) if self._count and length > 1 else None
        fit = max(2, BLOCK_AREA // max(self._count if near is None else len(near), 1))
        if length > fit:
            # more near than the last block had: fewer runs (far ones stay far in a prefix)
            sizes, avgs, stdevs = sizes[:fit], avgs[:fit], stdevs[:fit]
            length = fit
            inside = _Inside(self, sizes, avgs, stdevs)
        old = self._extended(inside, near) if self._count else None
        if length > 1:  # a block of one run tells nothing of how many are near
            self._near_count = self._count if near is None else len(near)
        new_best = np.empty_like(inside.bits)
        new_keys = np.empty_like(inside.bits)
        pairs = self._open_groups(first, inside, old, new_best, new_keys)
        ends = None
        if each:
            # every state at each run: the (near) survivors', then the block's;
            # a far survivor is more than log2(M + 1) above the cheapest state, so
            # never the cheapest partition of a prefix (see _near)
            old_starts = self._survivor_starts(near)
            ends = [
                (
                    np.concatenate((old.best[:, end], new_best[end, : end + 1]))
                    if old is not None
                    else new_best[end, : end + 1].copy(),
                    np.concatenate((old.mean[:, end], inside.mean[end, : end + 1]))
                    if old is not None
                    else inside.mean[end, : end + 1].copy(),
                    np.concatenate((old_starts, first + np.arange(end + 1))),
                )
                for end in range(length)
            ]
        if near is not None:
            old = None  # the near survivors only: all of them are extended in place below
        # the survivors' keys at the run the block ends with, and room for the block's
        keys = np.empty(self._count + length)
        if old is not None:  # every survivor at that run already
            self._keep_column(old, length - 1, keys)
        elif near is not None:
            self._extend_every_survivor(inside, length - 1, keys)
        self._close_block(first, inside, keys, new_best, new_keys, pairs)
        return _Block(length, ends)

    def _advance_all(
        self,
        first: int,
        sizes: npt.NDArray[np.int64],
        avgs: FloatArray,
        stdevs: FloatArray,
    ) -> None:
        """The block's steps when every survivor is extended over all its runs, in one call
        (:func:`.exact_kernels.advance_all`): one run's block, or few survivors."""
        pending_from, pending_key, pending_prev = self._pending
        *pairs, keys, keep, kept_all, cheapest, near = _kernels().advance_all(
            self._groups,
            self._count,
            first,
            *self._histories(),
            sizes,
            avgs,
            stdevs,
            pending_from,
            pending_key,
            pending_prev,
            self._size_bits,
            self._half_m,
            self._norm_floor,
            GAUSS_BITS_PER_TRIAL,
            self._theta_base,
            self._widest_jump,
            RELATIVE_SLACK,
        )
        self._closed(_Pairs(*pairs), keys, keep, kept_all, cheapest, near)

    def _keep_column(self, extended: _Extended, end: int, keys: FloatArray) -> None:
        """Make every survivor's statistics and best those of ``extended`` (all of them) at
        block run ``end``; their keys there into ``keys``."""
        count = self._count
        self._groups[TRIALS, :count] = extended.trials[:, end]
        self._groups[MEAN, :count] = extended.mean[:, end]
        self._groups[SPREAD, :count] = extended.spread[:, end]
        self._groups[BEST, :count] = extended.best[:, end]
        keys[:count] = extended.keys[:, end]

    def _extend_every_survivor(self, inside: _Inside, end: int, keys: FloatArray) -> None:
        """Every survivor's group grown to block run ``end``, in place; their keys into ``keys``.

        One compiled loop writes each survivor's new statistics over its old
        ones: no array the size of the survivors in between.
        """
        _kernels().extend_in_place(
            self._groups,
            self._count,
            *self._histories(),
            int(inside.cumulative[end + 1]),
            float(inside.mean[end, 0]),
            float(inside.spread[end, 0]),
            self._size_bits,
            self._half_m,
            self._norm_floor,
            keys,
        )

    def _extended(self, inside: _Inside, which: Survivors) -> _Extended:
        """Survivors ``which`` extended by each prefix of the block.

        Arrays [survivor, end]; each entry is computed alone, so a survivor's
        values do not depend on which others are computed with it.
        """
        count = self._count
        rows = np.arange(count) if which is None else which.astype(np.int64)
        trials, mean, spread, best, keys = _kernels().extend_survivors(
            rows,
            self._groups,
            *self._histories(),
            inside.trials_from_first(),
            inside.prefix_mean,
            inside.prefix_spread,
            self._size_bits,
            self._half_m,
            self._norm_floor,
        )
        return _Extended(
            trials=trials,
            mean=mean,
            spread=spread,
            best=best,
            keys=keys,
            which=which,
        )

    def _histories(self) -> tuple[npt.NDArray[np.int64], FloatArray, FloatArray]:
        """Where each start's predecessors begin, and their keys and averages."""
        return self._history_begin.view(), self._history_key.view(), self._history_prev.view()

    def _survivor_starts(self, which: Survivors) -> npt.NDArray[np.int64]:
        starts = self._groups[START, : self._count] if which is None else self._groups[START, which]
        return starts.astype(np.int64)

    def _near(self, inside: _Inside) -> npt.NDArray[np.intp] | None:
        """The survivors a group opened inside the block may follow (None: all).

        Inside a block, a survivor's states serve only as predecessors of the
        groups opened there, and :meth:`_open_groups` takes no state more than
        ``log2(M + 1)`` above the cheapest.  A survivor whose every state in the
        block is sure to lie further up is *far*: it is extended to the block's
        last run only.  A lower bound on its states: with ``A`` its group,
        ``E`` the block's runs up to ``e`` (``k`` trials) and ``a`` the
        average of ``AE``,

        * ``base(AE) >= c(n) + n log2(s + 1) + k * dc + k log2(s_E + 1)``
          (``n``, ``s``: ``A``'s): the steps of ``c`` are at least ``dc``
          (their least, from the table), ``n log2(s+1)`` is superadditive
          (``log2(sqrt(v) + 1)`` is concave: F3's argument, the spread between
          ``A`` and ``E`` dropped), and ``r(s) > 0``;
        * ``a`` lies between ``A``'s average and ``E``'s, ``k / (n + k)`` of
          the way from ``A``'s (``n`` trials; ``K / (n + K)`` at most, ``K``
          the block's trials), so each predecessor's jump is at most
          ``log2(1 + d)``, ``d`` its distance to the farther end of the range
          that leaves ``a`` with ``E``'s average anywhere between the block's
          prefix averages;
        * ``L(a) >= L_min`` (F2).

        The cheapest state at ``e`` costs at most the exact state of the
        cheapest survivor and of the newest one; a survivor whose bound is
        more than ``log2(M + 1)`` above theirs at every run of the block (with
        a margin for rounding) is far.  The concavity step loses much where
        the block's runs spread unlike the group (a spike in either): a
        survivor it leaves near is tried again run by run with the pooled
        spread itself (:func:`.exact_kernels.near_survivors`).  It is an
        optimisation only: a far survivor computed anyway would be chosen
        nowhere.
        """
        count = self._count
        if count < NEAR_MIN_SURVIVORS:
            return None
        added = self._added(inside)
        # the cheapest state at e, at most: the cheapest survivor's and the newest's
        references = np.unique(np.array([int(self._groups[BEST, :count].argmin()), count - 1]))
        ceiling = self._extended(inside, references).keys.min(axis=0)
        worst = float(np.max(ceiling - added))
        margin = self._widest_jump + NEAR_MARGIN * (abs(float(ceiling.max())) + 1.0)
        lower, rest = self._key_floor(inside, worst + margin)
        candidates = np.flatnonzero(lower <= worst + margin)
        ceiling += margin
        near = _kernels().near_survivors(
            self._groups,
            candidates,
            rest,
            self._size_bits,
            inside.trials_from_first(),
            inside.prefix_spread,
            ceiling,
        )
        return None if len(near) == count else near

    def _key_floor(self, inside: _Inside, threshold: float) -> tuple[FloatArray, FloatArray]:
        """Lower bounds of the survivors' keys in the block: ``lower[j] + added[e]`` (see
        _near and :meth:`_added`), and the part of ``lower`` that is not the group's size
        and spread (NaN where a quicker floor is already above ``threshold``)."""
        block_means = inside.prefix_mean
        return _kernels().key_floor(
            self._groups,
            self._count,
            *self._histories(),
            self._size_bits,
            float(block_means.min()),
            float(block_means.max()),
            float(inside.cumulative[-1]),
            math.log2(self._norm_floor),
            threshold,
        )

    def _added(self, inside: _Inside) -> FloatArray:
        """Per run ``e`` of the block, what every survivor's state adds at least."""
        block_trials = inside.trials_from_first().astype(np.float64)
        added = np.sqrt(inside.prefix_spread / block_trials)
        added += 1.0
        np.log2(added, out=added)
        added += self._least_step
        added *= block_trials
        return added

    def _open_groups(
        self,
        first: int,
        inside: _Inside,
        old: _Extended | None,
        best: FloatArray,
        keys: FloatArray,
    ) -> _Pairs:
        """Predecessors of the groups opened in the block, and their rows into ``best`` and
        ``keys`` ([end, start]; inf where start > end).

        The first group's are the pending ones; group ``t``'s are the states at
        run ``t - 1`` not dominated by the cheapest: the (near) survivors',
        ``old``, then those of the block's groups opened before ``t``.
        """
        pending_from, pending_key, pending_prev = self._pending
        if old is None:  # the first run: no survivors
            survivor_keys = survivor_means = np.empty((0, len(keys)))
        else:
            survivor_keys, survivor_means = old.keys, old.mean
        owner, froms, pair_keys, prevs, begins = _kernels().open_groups(
            inside.mean,
            inside.bits,
            inside.norm,
            survivor_keys,
            survivor_means,
            self._survivor_starts(None if old is None else old.which),
            first,
            pending_from,
            pending_key,
            pending_prev,
            self._widest_jump,
            RELATIVE_SLACK,
            best,
            keys,
        )
        return _Pairs(owner, froms, pair_keys, prevs, begins)

    def _close_block(
        self,
        first: int,
        inside: _Inside,
        keys: FloatArray,
        new_best: FloatArray,
        new_keys: FloatArray,
        pairs: _Pairs,
    ) -> None:
        """Make the survivors those after the block's last run, and find the next pending.

        The survivors are already at that run, their keys the first of ``keys``:
        the block's new starts join them.
        """
        end = len(pairs.begins) - 1
        keep, kept_all, cheapest, near = _kernels().close_survivors(
            self._groups,
            self._count,
            first,
            inside.cumulative,
            inside.mean[end],
            inside.spread[end],
            new_best[end],
            new_keys[end],
            keys,
            self._size_bits,
            GAUSS_BITS_PER_TRIAL,
            self._theta_base,
            self._widest_jump,
            RELATIVE_SLACK,
        )
        self._closed(pairs, keys, keep, kept_all, cheapest, near)

    def _closed(
        self,
        pairs: _Pairs,
        keys: FloatArray,
        keep: npt.NDArray[np.bool_],
        kept_all: bool,
        cheapest: int,
        near: npt.NDArray[np.int64],
    ) -> None:
        """Keep what a block found: its starts' predecessors in the history, its starts
        as survivors (:func:`.exact_kernels.close_survivors` wrote them into the groups),
        the next group's predecessors and the survivors to drop at the next run."""
        self._history_begin.extend(self._history_from.used + pairs.begins)
        self._history_from.extend(pairs.froms)
        self._history_key.extend(pairs.keys)
        self._history_prev.extend(pairs.prevs)
        self._count += len(pairs.begins)
        self._pending = self._predecessors(keys, cheapest, near)
        # a start that fails the split bound is still the last group of a partition of
        # the runs so far, so it is dropped only when the next run arrives
        self._doomed = None if kept_all else keep

    def _predecessors(
        self, keys: FloatArray, cheapest: int, near: npt.NDArray[np.int64]
    ) -> Pending:
        """The states ``(i, e)`` the next group may follow: all but the dominated.

        ``i`` is dominated by ``i'`` if ``U_i - U_i' > log2(|p_i - p_i'| + 1)``
        (``keys`` are the ``U``); testing against the cheapest ``U`` alone
        keeps a few extra, never too few.  Every average lies in ``[0, M]``,
        so no state more than ``log2(M + 1)`` above the cheapest passes: the
        test is made on the few closer, ``near`` (one bit more, for rounding;
        ``cheapest`` the cheapest), in one compiled loop
        (:func:`.exact_kernels.pending_states`), as a batch of searches
        extended at once makes it (:mod:`.batch_kernels`).
        """
        pending: Pending = _kernels().pending_states(
            self._groups, keys, cheapest, near, RELATIVE_SLACK
        )
        return pending

    def split_bound(self, trials: int, prev_avg: float) -> float:
        """``theta(n, q)``: the most a start may lie above the best and still be needed.

        ``L(q) + 2 log2(1 + M/2) + (L_max - L_min) + 2 + c(n) - n/2 log2(2 pi e)``
        for a last group of ``n`` trials, ``q`` (in units) the last average of
        the best partition so far; the methodology's proof derives it.
        """
        centred = prev_avg - self._half_m
        norm_bits = math.log2(centred * centred + self._norm_floor)
        size_theta = float(self._size_table()[trials] - trials * GAUSS_BITS_PER_TRIAL)
        return size_theta + norm_bits + self._theta_base

    @property
    def survivors(self) -> int:
        """Starts the search still extends: what its time per run grows with."""
        return self._count

    def _drop(self, keep: npt.NDArray[np.bool_]) -> None:
        """Forget the survivors not kept (their predecessors stay in the history)."""
        kept = int(keep.sum())
        self._groups[:, :kept] = self._groups[:, : self._count][:, keep]
        self._count = kept

    def partition(self) -> Partition:
        """The fewest-bits partition of the runs seen so far, priced exactly."""
        if not self.count:
            return Partition((), (), (), (), 0.0)
        count = self._count
        groups = self._groups
        return self._best_of(
            groups[BEST, :count],
            groups[MEAN, :count],
            groups[START, :count].astype(np.int64),
            self.count,
        )

    def _best_of(
        self, best: FloatArray, means: FloatArray, starts: npt.NDArray[np.int64], stop: int
    ) -> Partition:
        """The cheapest partition of runs ``[0, stop)`` whose last group starts at a state's start.

        ``best``, ``means`` and ``starts`` describe the states at run ``stop - 1``.
        """
        floor = float(best.min())
        close = np.flatnonzero(best <= floor + RELATIVE_SLACK * (abs(floor) + 1.0))
        if len(close) == 1:  # nearly always: one cheapest state
            index = int(close[0])
            return self.price(self._backtrack(int(starts[index]), float(means[index])), stop)
        found = [
            self.price(self._backtrack(int(starts[index]), float(means[index])), stop)
            for index in close
        ]
        return min(found, key=lambda partition: partition.bits)

    def _backtrack(self, start: int, avg: float) -> tuple[int, ...]:
        """Group starts of the best partition whose last group is ``start``'s, average ``avg``."""
        begins, froms = self._history_begin.view(), self._history_from.view()
        keys, prevs = self._history_key.view(), self._history_prev.view()
        starts = [start]
        while start:
            low = int(begins[start])
            high = int(begins[start + 1]) if start + 1 < len(begins) else len(froms)
            # Python floats and math.log2: the same ranking, to the last bit, as the lists had
            costs = [
                key - math.log2(abs(avg - prev) + 1.0)
                for key, prev in zip(keys[low:high].tolist(), prevs[low:high].tolist(), strict=True)
            ]
            chosen = low + costs.index(min(costs))
            start, avg = int(froms[chosen]), float(prevs[chosen])
            starts.append(start)
        return tuple(reversed(starts))

    def price(self, starts: tuple[int, ...], stop: int | None = None) -> Partition:
        """Any partition of the runs seen so far, or of the first ``stop``, priced exactly."""
        stop = self.count if stop is None else stop
        sizes, avgs, stdevs = (
            self._run_sizes.view(),
            self._run_avgs.view(),
            self._run_stdevs.view(),
        )
        # a longer history mostly repeats the groups before its last ones, and
        # its last group is mostly the last one before, grown
        known = self._passes
        passes = {}
        for start, end in zip(starts, (*starts[1:], stop), strict=True):
            one = known.get(start)
            if one is None or one.stop > end:
                one = GroupPass(start)
            if one.stop != end:  # a group unchanged since the last price needs no pass
                one.advance(sizes, avgs, stdevs, end)
            passes[start] = one
        self._passes = passes
        stats = [one.stats for one in passes.values()]
        sizes, avgs, stdevs = zip(*stats, strict=True)
        return Partition(starts, sizes, avgs, stdevs, bits=self._groups_bits(stats))

    def _groups_bits(self, stats: list[tuple[int, float, float]]) -> float:
        """Bits of consecutive groups (:func:`groups_bits`), each group's counted once as long
        as it stays the same from one price to the next."""
        total, self._priced = groups_bits(self.model, stats, self._priced)
        return total


Priced = dict[tuple[int, float, float, float | None], float]
"""Groups' bits by (size, avg, stdev, previous average)."""


def groups_bits(
    model: BitModel, stats: list[tuple[int, float, float]], known: Priced | None = None
) -> tuple[float, Priced]:
    """Bits of consecutive groups, as the reference counts a list of whole groups.

    Its group re-derives (avg, stdev) once more before counting (see
    :func:`~.bits.perturb`); the next group is priced against the average
    itself.  ``known`` are bits counted before, by group and previous
    average: a longer prefix mostly repeats every group but its last one.
    Also returns those of these groups.
    """
    priced: Priced = {}
    total = 0.0
    previous: float | None = None
    for size, avg, stdev in stats:
        key = (size, avg, stdev, previous)
        bits = None if known is None else known.get(key)
        if bits is None:
            bits = model.group_bits(size, *perturb(size, avg, stdev), previous)
        priced[key] = bits
        total += bits
        previous = avg
    return total, priced


def exact_search(runs: PreparedRuns, model: BitModel) -> Partition:
    """The minimum-bits partition of the present runs."""
    search = ExactSearch(model)
    search.extend(runs)
    return search.partition()
