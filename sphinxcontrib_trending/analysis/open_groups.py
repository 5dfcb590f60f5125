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
``S*S*n`` each time it merges or counts bits, those re-derived forms too.

The per-run cost is dominated by numpy's per-call overhead, not by the
elements, so the arrays are worked on in windows: views over the first ``W``
entries, ``W`` the run count rounded up to :data:`WINDOW_STEP`, are made once
per window instead of once per call.  Entries past the current run are groups
not opened yet: they are kept finite and overwritten when their run arrives.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.runs import PreparedRuns

IntArray = npt.NDArray[np.int64]

WINDOW_STEP = 64


class OpenGroups:
    """Groups ``[s, k]`` for every start ``s <= k``, after :meth:`advance` reached run ``k``.

    ``avg``, ``stdev``, ``avg_seen`` and ``moment_seen`` index ``s``: the stored
    average and stdev, and ``A*n/n`` and ``S*S*n`` as the reference derives
    them.  The ``window_*`` views cover :attr:`window` entries, ``k+1`` of which
    are groups; ``window_sizes`` holds their trial counts (1 past ``k``).
    """

    def __init__(self, runs: PreparedRuns) -> None:
        count = runs.count
        self.runs = runs
        self.count = count
        self.cumulative = np.concatenate(([0], np.cumsum(runs.sizes))).astype(np.int64)
        self.uniform = count > 0 and bool(np.all(runs.sizes == runs.sizes[0]))
        self._plain = ((runs.sizes == 1) & (runs.stdevs == 0.0)).tolist()
        self._run_sizes = runs.sizes.astype(np.float64).tolist()
        self._run_avgs = runs.avgs.tolist()
        self._run_stdevs = runs.stdevs.tolist()
        padded = count + WINDOW_STEP
        self.avg = np.zeros(padded)
        self.stdev = np.zeros(padded)
        self.avg_seen = np.zeros(padded)
        self.moment_seen = np.zeros(padded)
        self._delta = np.zeros(padded)
        self._old_sizes = np.ones(padded)
        self._new_sizes = np.ones(padded)
        self._size_index = np.ones(padded, dtype=np.int64)
        step = int(runs.sizes[0]) if self.uniform else 0
        # with equal runs, group [s, k] has step*(k+1-s) trials: the sizes of
        # all groups ending at k are a reversed slice, starting at count-k;
        # the padding past a real size keeps not-yet-opened entries finite
        multiples = np.arange(count + 1, 0, -1, dtype=np.int64) * step
        self.multiples: IntArray = np.concatenate((multiples, np.full(padded, max(step, 1))))
        self._multiples_float = self.multiples.astype(np.float64)
        self.last = -1
        self.window = 0
        self._set_window(min(WINDOW_STEP, max(count, 1)))

    def _set_window(self, window: int) -> None:
        self.window = window
        self.window_avg = self.avg[:window]
        self.window_stdev = self.stdev[:window]
        self._window_avg_seen = self.avg_seen[:window]
        self._window_moment = self.moment_seen[:window]
        self._window_delta = self._delta[:window]

    def group_size(self, start: int, stop: int) -> int:
        """Trials in runs ``[start, stop)``."""
        return int(self.cumulative[stop] - self.cumulative[start])

    def window_sizes(self) -> IntArray:
        """Trial counts of groups ``[s, k]`` over the window (1 for unopened entries)."""
        k = self.last
        if self.uniform:
            return self.multiples[self.count - k : self.count - k + self.window]
        window = self.window
        sizes = np.subtract(
            self.cumulative[k + 1], self.cumulative[:window], out=self._size_index[:window]
        )
        return np.maximum(sizes, 1, out=sizes)

    def advance(self) -> int:
        """Merge the next run into every open group and open a group for it alone.

        Returns the index ``k`` of the run just merged.
        """
        k = self.last + 1
        self.last = k
        if k >= self.window:
            self._set_window(min(self.window + WINDOW_STEP, self.count))
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
        """Merge run ``k`` (size, avg, stdev) into every group ``[s, k-1]``."""
        window = self.window
        if self.uniform:
            first = self.count - k
            new_size = self._multiples_float[first : first + window]
            old_size = self._multiples_float[first + 1 : first + 1 + window]
        else:
            starts = self.cumulative[:window]
            old_size = np.subtract(self.cumulative[k], starts, out=self._old_sizes[:window])
            new_size = np.subtract(self.cumulative[k + 1], starts, out=self._new_sizes[:window])
            np.maximum(old_size, 1.0, out=old_size)
            np.maximum(new_size, 1.0, out=new_size)
        avg_seen = self._window_avg_seen
        moment = self._window_moment
        new_avg = self.window_avg
        work = self.window_stdev
        delta = np.subtract(avg, avg_seen, out=self._window_delta)
        np.multiply(delta, delta, out=work)
        np.multiply(work, old_size, out=work)
        if self._plain[k]:
            # the general update with size 1 and stdev 0, minus its exact no-ops
            np.divide(delta, new_size, out=new_avg)
        else:
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
