"""Classify a history that grows at its end without redoing the whole search.

A daily rebuild adds one run per test; :class:`IncrementalClassifier` keeps
the exact search's state (:class:`~.exact.ExactSearch`) between calls, so each
new run costs about as much as one step of the search.  The state is only
valid while the bit model stays the same: a run above the largest value seen
so far changes the unit (or at least ``M``) and so every bit count, and the
search then starts over on the whole history.

``search="jumpavg"`` has no reusable state and is recomputed on every call,
and so is a history with a negative value: every value is shifted by the
smallest (see :mod:`.runs`), which a later run can move.  The search state
can be saved as plain arrays (:meth:`IncrementalClassifier.save`) and
resumed in another process (:meth:`IncrementalClassifier.resumed`).
"""

from __future__ import annotations

import bisect
import functools
import itertools
from collections.abc import Callable, Iterator, Sequence
from numbers import Real
from typing import Protocol

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
from sphinxcontrib_trending.analysis.runs import PreparedRuns, Run, is_number_array, prepare_runs
from sphinxcontrib_trending.analysis.saved_search import SavedSearch


class Grouping(Protocol):
    """How to get one prefix's classification, with or without the groups' details."""

    def __call__(self, *, details: bool = True) -> Classification: ...


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
        self._prepared = _NO_RUNS
        self._state: ExactSearch | None = None
        # the runs as given, for a history whose shift a new run may change
        self._given = _GivenRuns()
        self._shifted = False

    def save(self, copy: bool = True) -> SavedSearch | None:
        """The search state :meth:`resumed` goes on from; None when there is none to keep.

        Only an exact search over non-negative values has one: jumpavg keeps
        nothing between runs, and a negative value shifts the whole series.
        ``copy=False`` as for :meth:`.ExactSearch.save`: valid until this
        classifier is extended again.
        """
        state = self._state
        if state is None or self._shifted or state.count != self._prepared.count:
            return None
        return state.save(copy)

    @classmethod
    def resumed(
        cls,
        runs: Sequence[Run],
        saved: SavedSearch,
        unit: float | None = None,
        sbps: float | None = None,
        direction: Direction = "higher",
        outlier_runs: int | None = None,
    ) -> IncrementalClassifier:
        """A classifier that has seen ``runs``, from the state :meth:`save` gave after them.

        Raises ``ValueError`` when ``saved`` is not the exact search of these
        runs under these settings (another unit, largest value or length).
        """
        classifier = cls(unit, sbps, "exact", direction, outlier_runs)
        classifier._resume(prepare_runs(runs), runs, saved)
        return classifier

    @classmethod
    def continued(
        cls,
        runs: Sequence[Run],
        seen: int,
        saved: SavedSearch,
        unit: float | None = None,
        sbps: float | None = None,
        direction: Direction = "higher",
        outlier_runs: int | None = None,
    ) -> tuple[IncrementalClassifier, Classification]:
        """``resumed(runs[:seen], saved, ...)``, then :meth:`extend` with the rest.

        What a build that added runs to a series does.  A history of numbers
        (run averages) is prepared once, not in two parts joined again: a
        fifth of that build's grouping of a series went to preparing its runs.
        Raises ``ValueError`` as :meth:`resumed` does.
        """
        numbers = is_number_array(runs) or all(type(run) is float or run is None for run in runs)
        whole = prepare_runs(runs) if numbers else None
        count = 0 if whole is None else int(np.searchsorted(whole.present, seen))
        if whole is None or whole.offset or not count:  # trials, or a negative value (the
            # two steps say where), or nothing seen: the runs are prepared in two parts
            classifier = cls.resumed(runs[:seen], saved, unit, sbps, direction, outlier_runs)
            return classifier, classifier.extend(runs[seen:])
        # numbers, prepared: each its own average, so the first ones' are those numbers'
        first = PreparedRuns(
            run_count=seen,
            present=whole.present[:count],
            sizes=whole.sizes[:count],
            avgs=whole.avgs[:count],
            stdevs=whole.stdevs[:count],
            max_value=float(whole.avgs[:count].max()),
            missing=whole.missing[: bisect.bisect_left(whole.missing, seen)],
        )
        classifier = cls(unit, sbps, "exact", direction, outlier_runs)
        classifier._resume(first, runs[:seen], saved, trials=int(whole.sizes.sum()))
        classifier._given.add(runs[seen:])
        return classifier, classifier._extended(whole)

    def _resume(
        self, prepared: PreparedRuns, runs: Sequence[Run], saved: SavedSearch, trials: int = 0
    ) -> None:
        """Go on from ``saved``, the search of ``runs`` (``prepared``); see :meth:`resumed`.

        ``trials``: the trials it will have once extended, if known (see
        :meth:`.ExactSearch.resume`)."""
        if prepared.offset or not prepared.count:
            raise ValueError("only a search over non-negative values is saved")
        if (saved.max_value, saved.unit) != (
            prepared.max_value,
            resolve_unit(prepared.max_value, self.unit, self.sbps),
        ):
            raise ValueError("the saved search has another bit model")
        self._state = ExactSearch.resume(saved, prepared, trials)
        self._prepared = prepared
        self._given = _GivenRuns()
        self._given.add(runs)

    @property
    def run_count(self) -> int:
        """Runs given so far, missing ones included."""
        return self._prepared.run_count

    def extend(self, runs: Sequence[Run]) -> Classification:
        """Append ``runs`` (oldest first) and classify the whole history."""
        chunk = prepare_runs(runs)
        self._given.add(runs)
        if self._shifted or chunk.offset < 0.0:
            return self._afresh()
        return self._extended(_concatenate(self._prepared, chunk))

    def _extended(self, prepared: PreparedRuns) -> Classification:
        """Classify ``prepared``, the runs so far and those just given, by extending the
        search; the runs are already in ``_given``."""
        self._prepared = prepared
        if self.search != "exact" or prepared.max_value <= 0.0:
            return self._grouped(prepared)
        state = self._state_for(prepared)
        state.extend(_tail(prepared, state.count))
        return self._classified(prepared, state, state.partition())

    def extend_each(self, runs: Sequence[Run]) -> Iterator[Grouping]:
        """Append ``runs`` one by one, yielding after each how to get the classification.

        Each function gives what :meth:`extend` with one run at a time would
        have returned (``details=False`` without the groups' confidences, see
        :func:`.classify_prepared`), but the exact search advances in blocks over every
        stretch of runs that keeps the bit model (no new largest value), and a
        prefix nobody asks for is never classified: judging every build of a
        history (``check --all``) is one pass of the search.  Abandoned before
        its end, it leaves a state that a later call rebuilds.
        """
        chunk, measured, peaks = _prepare_each(runs)
        if self._shifted or chunk.offset < 0.0:
            for run in runs:
                self._given.add((run,))
                yield functools.partial(self._grouped, self._afresh_prepared())
            return
        base = self._prepared
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
                self._given.add(runs[index : index + 1])
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
                self._given.add(runs[later : later + 1])
                if measured[later]:
                    partition = next(partitions)
                yield functools.partial(self._classified, self._prepared, state, partition)
            self._state = state
            index = stop

    def _afresh(self) -> Classification:
        """The whole history classified from scratch: it has a negative value."""
        return self._grouped(self._afresh_prepared())

    def _afresh_prepared(self) -> PreparedRuns:
        """Every run so far prepared at once, with the shift of the whole history."""
        self._shifted = True
        self._state = None
        self._prepared = prepare_runs(self._given.joined())
        return self._prepared

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
        *,
        details: bool = True,
    ) -> Classification:
        """:func:`classify_prepared` with this classifier's settings.

        Without ``searcher`` the search runs afresh (jumpavg, or all values
        zero: nothing to keep between calls); with it and the saved search's
        ``model`` it takes the partition that search found.  ``details`` as
        for :func:`classify_prepared`.
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
            details=details,
        )

    def _classified(
        self,
        prepared: PreparedRuns,
        state: ExactSearch,
        partition: Partition | Callable[[], Partition] | None,
        *,
        details: bool = True,
    ) -> Classification:
        if callable(partition):
            partition = partition()
        return self._grouped(
            prepared,
            searcher=lambda _runs, _model: partition,
            model=state.model,
            details=details,
        )


class _GivenRuns:
    """The runs a classifier was given, in the chunks they came in.

    Only a history that a negative value shifts reads them again, whole: a
    classifier resumed from a series held as one array of numbers (every
    build's grouping of a series) never makes a list of its runs.
    """

    def __init__(self) -> None:
        self._chunks: list[Sequence[Run]] = []

    def add(self, runs: Sequence[Run]) -> None:
        if len(runs):
            self._chunks.append(runs)

    def joined(self) -> Sequence[Run]:
        """Every run given, oldest first, as one sequence (kept as the only chunk)."""
        chunks = self._chunks
        if len(chunks) > 1:
            if all(is_number_array(chunk) for chunk in chunks):
                self._chunks = [np.concatenate(chunks)]  # type: ignore[arg-type]
            else:
                self._chunks = [[run for chunk in chunks for run in chunk]]
        return self._chunks[0] if self._chunks else []


_NO_RUNS = prepare_runs([])
"""What a classifier has seen before its first run, made once: each series' grouping makes
a classifier, and preparing nothing cost nearly as much as preparing its one new run."""


def _prepare_each(
    runs: Sequence[Run],
) -> tuple[PreparedRuns, npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """``runs`` prepared, and per run whether it is present and its largest value (0.0 if
    missing).  A chunk with a negative value is classified afresh, run by run."""
    chunk = prepare_runs(runs)
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
    offsets = list(itertools.accumulate((part.run_count for part in parts), initial=0))
    return PreparedRuns(
        run_count=offsets[-1],
        present=np.concatenate(
            [
                part.present + offset if offset else part.present
                for part, offset in zip(parts, offsets, strict=False)
            ]
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
