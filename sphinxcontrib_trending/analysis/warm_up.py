"""Loading every compiled loop a grouping runs, before the processes that group are forked.

A compiled function is loaded from numba's cache on its first call in a
process: :func:`.compiled_loops` loads numba and one loop, and the first
series a worker grouped loaded the others (80 ms more).  The process the
grouping's workers are forked from (:class:`~.ready_workers.ReadyWorkers`)
groups one made-up series from scratch and then extends it from its saved
search, alone and in a batch, as a build does, so its workers inherit every
loop loaded.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sphinxcontrib_trending.analysis.batch_extend import StateBuffer, extend_batch
from sphinxcontrib_trending.analysis.exact_loading import compiled_loops
from sphinxcontrib_trending.analysis.identity import GroupingSpec
from sphinxcontrib_trending.analysis.incremental import IncrementalClassifier
from sphinxcontrib_trending.analysis.saved_search import SavedSearch

LEVEL_RUNS = 80
"""Runs per level of the made-up series: fewer never reach the search's pruning loops."""


def warm_up_runs() -> np.ndarray:
    """Two levels of noisy runs with a spike in the first: every stage of the search and
    of its outliers."""
    noise = np.random.default_rng(0).normal(0.0, 2.0, 2 * LEVEL_RUNS)
    runs = np.repeat([100.0, 120.0], LEVEL_RUNS) + noise
    runs[LEVEL_RUNS // 2] *= 1.5
    return runs


class _Job(NamedTuple):
    """What :func:`.extend_batch` reads of a job."""

    samples: np.ndarray
    settings: GroupingSpec


def load_grouping() -> None:
    """Group and extend :func:`warm_up_runs` once, alone and in a batch, so every loop they
    call is loaded."""
    compiled_loops()
    runs = warm_up_runs()
    seen = len(runs) - 1
    classifier = IncrementalClassifier()
    classifier.extend(runs[:seen])
    saved = classifier.save()
    if saved is not None:  # always, of positive runs: the state is checked on its way back
        data = saved.to_bytes()
        IncrementalClassifier.continued(runs, seen, SavedSearch.from_bytes(data))
        extend_batch([_Job(runs, GroupingSpec())], [seen], StateBuffer.of([data]), [0])
