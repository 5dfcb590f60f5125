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

from collections.abc import Sequence

import numpy as np

from sphinxcontrib_trending.analysis.bits import BitModel, resolve_unit
from sphinxcontrib_trending.analysis.classify import (
    DIRECTIONS,
    SEARCHES,
    Classification,
    Direction,
    Search,
    classify_prepared,
)
from sphinxcontrib_trending.analysis.exact import ExactSearch
from sphinxcontrib_trending.analysis.runs import PreparedRuns, Run, prepare_runs


class IncrementalClassifier:
    """:func:`~.classify.classify` of ``all runs given so far``, after each :meth:`extend`.

    The arguments are :func:`~.classify.classify`'s; every result equals
    ``classify(runs_so_far, unit, sbps, search, direction)``.
    """

    def __init__(
        self,
        unit: float | None = None,
        sbps: float | None = None,
        search: Search = "exact",
        direction: Direction = "higher",
    ) -> None:
        if search not in SEARCHES:
            raise ValueError(f"search must be one of {SEARCHES}, got {search!r}")
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
        self.unit = unit
        self.sbps = sbps
        self.search = search
        self.direction = direction
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
            return classify_prepared(prepared, self.unit, self.sbps, self.search, self.direction)
        unit = resolve_unit(prepared.max_value, self.unit, self.sbps)
        state = self._state
        if state is None or (state.model.max_value, state.model.unit) != (
            prepared.max_value,
            unit,
        ):
            trials = int(prepared.sizes.sum())
            state = ExactSearch(BitModel(prepared.max_value, unit, trials))
            self._state = state
        state.extend(_tail(prepared, state.count))
        partition = state.partition()
        return classify_prepared(
            prepared,
            self.unit,
            self.sbps,
            self.search,
            self.direction,
            searcher=lambda _runs, _model: partition,
            model=state.model,
        )


def _concatenate(first: PreparedRuns, second: PreparedRuns) -> PreparedRuns:
    """The prepared runs of two histories one after the other."""
    offset = first.run_count
    return PreparedRuns(
        run_count=offset + second.run_count,
        present=np.concatenate((first.present, second.present + offset)),
        sizes=np.concatenate((first.sizes, second.sizes)),
        avgs=np.concatenate((first.avgs, second.avgs)),
        stdevs=np.concatenate((first.stdevs, second.stdevs)),
        max_value=max(first.max_value, second.max_value),
        missing=first.missing + tuple(index + offset for index in second.missing),
    )


def _tail(prepared: PreparedRuns, skip: int) -> PreparedRuns:
    """The present runs after the first ``skip`` of them."""
    return PreparedRuns(
        run_count=prepared.run_count,
        present=prepared.present[skip:],
        sizes=prepared.sizes[skip:],
        avgs=prepared.avgs[skip:],
        stdevs=prepared.stdevs[skip:],
        max_value=prepared.max_value,
        missing=(),
    )
