"""Statistics of every group that ends at the current run, updated run by run.

Both searches need, after run ``k``, the statistics of each group ``[s, k]``.
The reference library keeps one Python object per start ``s`` and merges the
new run into each (Chan/Welford, one run at a time); here the same merge runs
on numpy arrays, one element per start, so all open groups advance with a
handful of array operations per run.  Elementwise ``+ - * / sqrt`` are
correctly rounded in numpy as in Python, so every statistic is bit-identical to
the reference's.

Per open group the arrays hold the reference's stored statistics (average
``A``, stdev ``S``) and, because the reference re-derives them as ``A*n/n`` and
``S*S*n`` each time it merges or counts bits, those re-derived forms too
(:attr:`OpenGroups.avg_seen`, :attr:`OpenGroups.moment_seen`).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.runs import PreparedRuns

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class OpenGroups:
    """Groups ``[s, k]`` for every start ``s <= k``, after :meth:`advance` reached run ``k``.

    After each advance, ``avg`` / ``stdev`` / ``avg_seen`` / ``moment_seen``
    sliced to ``[:k+1]`` describe the groups ``[s, k]``; index ``k`` holds the
    group of run ``k`` alone.
    """

    def __init__(self, runs: PreparedRuns) -> None:
        count = runs.count
        self.runs = runs
        self.count = count
        self.cumulative = np.concatenate(([0], np.cumsum(runs.sizes))).astype(np.int64)
        self._cumulative_float = self.cumulative.astype(np.float64)
        self.uniform = count > 0 and bool(np.all(runs.sizes == runs.sizes[0]))
        self._plain = ((runs.sizes == 1) & (runs.stdevs == 0.0)).tolist()
        self._run_sizes = runs.sizes.astype(np.float64).tolist()
        self._run_avgs = runs.avgs.tolist()
        self._run_stdevs = runs.stdevs.tolist()
        self.avg = np.zeros(count)
        self.stdev = np.zeros(count)
        self.avg_seen = np.zeros(count)
        self.moment_seen = np.zeros(count)
        self._delta = np.zeros(count)
        self._work = np.zeros(count)
        self._sizes = np.zeros(count)
        self._size_index = np.zeros(count, dtype=np.int64)
        step = int(runs.sizes[0]) if self.uniform else 0
        # with equal runs, group [s, k] has step*(k+1-s) trials: the sizes of
        # all groups ending at k are the reversed slice [count-k : count+1]
        self.multiples: IntArray = np.arange(count + 1, 0, -1, dtype=np.int64) * step
        self._multiples_float = self.multiples.astype(np.float64)
        self.last = -1

    def group_size(self, start: int, stop: int) -> int:
        """Trials in runs ``[start, stop)``."""
        return int(self.cumulative[stop] - self.cumulative[start])

    def sizes_through(self, k: int) -> IntArray:
        """Trial counts of the groups ``[s, k]`` for ``s = 0..k``."""
        return np.subtract(
            self.cumulative[k + 1], self.cumulative[: k + 1], out=self._size_index[: k + 1]
        )

    def advance(self) -> int:
        """Merge the next run into every open group and open a group for it alone.

        Returns the index ``k`` of the run just merged.
        """
        k = self.last + 1
        self.last = k
        size = self._run_sizes[k]
        avg = self._run_avgs[k]
        stdev = self._run_stdevs[k]
        if k:
            self._merge(k, size, avg, stdev)
        # a group of one run: the reference builds it with the same merge
        stats_avg = avg * size / size
        stats_stdev = math.sqrt(stdev * stdev * size / size)
        self.avg[k] = stats_avg
        self.stdev[k] = stats_stdev
        self.avg_seen[k] = stats_avg * size / size
        self.moment_seen[k] = stats_stdev * stats_stdev * size
        return k

    def _merge(self, k: int, size: float, avg: float, stdev: float) -> None:
        if self.uniform:
            end = self.count + 1
            new_size = self._multiples_float[end - k - 1 : end - 1]
            old_size = self._multiples_float[end - k : end]
        else:
            starts = self._cumulative_float[:k]
            old_size = np.subtract(self._cumulative_float[k], starts, out=self._work[:k])
            new_size = np.subtract(self._cumulative_float[k + 1], starts, out=self._sizes[:k])
        avg_seen = self.avg_seen[:k]
        moment = self.moment_seen[:k]
        new_avg = self.avg[:k]
        delta = np.subtract(avg, avg_seen, out=self._delta[:k])
        if self._plain[k]:
            # the general update with size 1 and stdev 0, minus its exact no-ops
            work = np.multiply(delta, delta, out=self.stdev[:k])
            np.multiply(work, old_size, out=work)
            np.divide(delta, new_size, out=new_avg)
        else:
            work = np.multiply(delta, delta, out=self.stdev[:k])
            np.multiply(work, old_size, out=work)
            np.multiply(work, size, out=work)
            np.multiply(delta, size, out=new_avg)
            np.divide(new_avg, new_size, out=new_avg)
            np.add(moment, stdev * stdev * size, out=moment)
        np.add(avg_seen, new_avg, out=new_avg)
        np.divide(work, new_size, out=work)
        np.add(moment, work, out=work)
        np.divide(work, new_size, out=work)
        new_stdev = np.sqrt(work, out=work)
        # what the reference derives when it next merges or counts bits
        np.multiply(new_avg, new_size, out=avg_seen)
        np.divide(avg_seen, new_size, out=avg_seen)
        np.multiply(new_stdev, new_stdev, out=moment)
        np.multiply(moment, new_size, out=moment)

    def seen_stats(self, start: int) -> tuple[int, float, float]:
        """(size, avg, stdev) of group ``[start, k]`` as the bit formula receives them."""
        size = self.group_size(start, self.last + 1)
        return size, float(self.avg_seen[start]), math.sqrt(float(self.moment_seen[start]) / size)
