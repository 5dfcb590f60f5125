"""Classify a history that grows at its end without redoing the whole search.

A daily rebuild adds one run per test; :class:`IncrementalClassifier` keeps
the exact search's state (:class:`~.exact.ExactSearch`) between calls, so each
new run costs about as much as one step of the search.  The state is only
valid while the bit model stays the same: a run above the largest value seen
so far changes the unit (or at least ``M``) and so every bit count, and the
search then starts over on the whole history.

``search="jumpavg"`` has no reusable state and is recomputed on every call.
The object pickles, for caching between builds.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Iterator, Sequence
from numbers import Real

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.bits import BitModel, resolve_unit
from sphinxcontrib_trending.analysis.classify import (
    DIRECTIONS,
    SEARCHES,
    Classification,
    Direction,
    Search,
    Searcher,
    classify_prepared,
    resolve_outlier_runs,
)
from sphinxcontrib_trending.analysis.exact import ExactSearch
from sphinxcontrib_trending.analysis.greedy import Partition
from sphinxcontrib_trending.analysis.runs import PreparedRuns, Run, prepare_runs


class IncrementalClassifier:
    """:func:`~.classify.classify` of ``all runs given so far``, after each :meth:`extend`.

    The arguments are :func:`~.classify.classify`'s; every result equals
    ``classify(runs_so_far, unit, sbps, search, direction, outlier_runs)``:
    outliers are found on the extended search's partition, as :func:`classify`
    finds them on a fresh one.
    """

    def __init__(
        self,
        unit: float | None = None,
        sbps: float | None = None,
        search: Search = "exact",
        direction: Direction = "higher",
        outlier_runs: int | None = None,
    ) -> None:
        if search not in SEARCHES:
            raise ValueError(f"search must be one of {SEARCHES}, got {search!r}")
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
        self.unit = unit
        self.sbps = sbps
        self.search = search
        self.direction = direction
        self.outlier_runs = resolve_outlier_runs(outlier_runs, search)
        self._prepared = prepare_runs([])
        self._state: ExactSearch | None = None

    @property
    def run_count(self) -> int:
        """Runs given so far, missing ones included."""
        return self._prepared.run_count

    def extend(self, runs: Sequence[Run]) -> Classification:
        """Append ``runs`` (oldest first) and classify the whole history."""
        prepared = _concatenate(self._prepared, prepare_runs(runs))
        self._prepared = prepared
        if self.search != "exact" or prepared.max_value <= 0.0:
            return self._grouped(prepared)
        state = self._state_for(prepared)
        state.extend(_tail(prepared, state.count))
        return self._classified(prepared, state, state.partition())

    def extend_each(self, runs: Sequence[Run]) -> Iterator[Callable[[], Classification]]:
        """Append ``runs`` one by one, yielding after each how to get the classification.

        Each function gives what :meth:`extend` with one run at a time would
        have returned, but the exact search advances in blocks over every
        stretch of runs that keeps the bit model (no new largest value), and a
        prefix nobody asks for is never classified: judging every build of a
        history (``check --all``) is one pass of the search.  Abandoned before
        its end, it leaves a state that a later call rebuilds.
        """
        base = self._prepared
        chunk, measured, peaks = _prepare_each(runs)
        whole = _concatenate(base, chunk)
        # per run of ``runs``: present runs and largest value up to it
        present = base.count + np.cumsum(measured, dtype=np.int64)
        largest = np.maximum.accumulate(np.concatenate(([base.max_value], peaks)))

        def prefix(index: int) -> PreparedRuns:
            run_count = base.run_count + index + 1
            count = int(present[index])
            return PreparedRuns(
                run_count=run_count,
                present=whole.present[:count],
                sizes=whole.sizes[:count],
                avgs=whole.avgs[:count],
                stdevs=whole.stdevs[:count],
                max_value=float(largest[index + 1]),
                missing=whole.missing[: bisect.bisect_left(whole.missing, run_count)],
            )

        index = 0
        while index < len(runs):
            prepared = prefix(index)
            if self.search != "exact" or prepared.max_value <= 0.0:
                self._prepared = prepared
                yield functools.partial(self._grouped, prepared)
                index += 1
                continue
            state = self._state_for(prepared)
            self._state = None  # until the stretch is searched to its end
            before = int(present[index - 1]) if index else base.count
            state.extend(_between(whole, state.count, before, prepared.max_value))
            stop = int(np.searchsorted(largest[1:], prepared.max_value, side="right"))
            partitions = state.extend_each(
                _between(whole, before, int(present[stop - 1]), prepared.max_value)
            )
            partition: Partition | Callable[[], Partition] | None = None
            if not measured[index]:  # a missing run first: the partition so far
                partition = state.partition()
            for later in range(index, stop):
                self._prepared = prefix(later)
                if measured[later]:
                    partition = next(partitions)
                yield functools.partial(self._classified, self._prepared, state, partition)
            self._state = state
            index = stop

    def _state_for(self, prepared: PreparedRuns) -> ExactSearch:
        """The saved search if it has this history's bit model, else a new one."""
        unit = resolve_unit(prepared.max_value, self.unit, self.sbps)
        state = self._state
        if state is None or (state.model.max_value, state.model.unit) != (
            prepared.max_value,
            unit,
        ):
            trials = int(prepared.sizes.sum())
            state = ExactSearch(BitModel(prepared.max_value, unit, trials))
            self._state = state
        return state

    def _grouped(
        self,
        prepared: PreparedRuns,
        searcher: Searcher | None = None,
        model: BitModel | None = None,
    ) -> Classification:
        """:func:`classify_prepared` with this classifier's settings.

        Without ``searcher`` the search runs afresh (jumpavg, or all values
        zero: nothing to keep between calls); with it and the saved search's
        ``model`` it takes the partition that search found.
        """
        return classify_prepared(
            prepared,
            self.unit,
            self.sbps,
            self.search,
            self.direction,
            searcher=searcher,
            model=model,
            outlier_runs=self.outlier_runs,
        )

    def _classified(
        self,
        prepared: PreparedRuns,
        state: ExactSearch,
        partition: Partition | Callable[[], Partition] | None,
    ) -> Classification:
        if callable(partition):
            partition = partition()
        return self._grouped(prepared, searcher=lambda _runs, _model: partition, model=state.model)


def _prepare_each(
    runs: Sequence[Run],
) -> tuple[PreparedRuns, npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """``runs`` prepared as :meth:`IncrementalClassifier.extend` would, one at a time.

    Also per run: whether it is present, and its largest value (0.0 if
    missing).  One :func:`~.runs.prepare_runs` call does it unless a value is
    negative: each run is then shifted on its own, as :meth:`extend` does.
    """
    chunk = prepare_runs(runs)
    if chunk.offset < 0.0:
        pieces = [prepare_runs([run]) for run in runs]
        measured = np.array([piece.count > 0 for piece in pieces], dtype=np.bool_)
        peaks = np.array([piece.max_value for piece in pieces], dtype=np.float64)
        return _concatenate(prepare_runs([]), *pieces), measured, peaks
    measured = np.zeros(len(runs), dtype=np.bool_)
    measured[chunk.present] = True
    peaks = np.zeros(len(runs))
    peaks[chunk.present] = [
        max(trial for trial in run if trial == trial) if _is_trials(run) else float(run)
        for run in (runs[index] for index in chunk.present.tolist())
    ]
    return chunk, measured, peaks


def _is_trials(run: Run) -> bool:
    return not isinstance(run, Real) or isinstance(run, bool)


def _concatenate(first: PreparedRuns, *more: PreparedRuns) -> PreparedRuns:
    """The prepared runs of histories one after the other."""
    parts = (first, *more)
    offsets = np.cumsum([0, *(part.run_count for part in parts)])
    return PreparedRuns(
        run_count=int(offsets[-1]),
        present=np.concatenate(
            [part.present + offset for part, offset in zip(parts, offsets, strict=False)]
        ),
        sizes=np.concatenate([part.sizes for part in parts]),
        avgs=np.concatenate([part.avgs for part in parts]),
        stdevs=np.concatenate([part.stdevs for part in parts]),
        max_value=max(part.max_value for part in parts),
        missing=tuple(
            int(index + offset)
            for part, offset in zip(parts, offsets, strict=False)
            for index in part.missing
        ),
    )


def _tail(prepared: PreparedRuns, skip: int) -> PreparedRuns:
    """The present runs after the first ``skip`` of them."""
    return _between(prepared, skip, prepared.count, prepared.max_value)


def _between(prepared: PreparedRuns, start: int, stop: int, max_value: float) -> PreparedRuns:
    """Present runs ``[start, stop)`` (by their order among the present), for a search."""
    return PreparedRuns(
        run_count=prepared.run_count,
        present=prepared.present[start:stop],
        sizes=prepared.sizes[start:stop],
        avgs=prepared.avgs[start:stop],
        stdevs=prepared.stdevs[start:stop],
        max_value=max_value,
        missing=(),
    )
