"""The paths a grouping worker takes through the incremental classifier.

A series of numbers given as one array (what a grouping job holds) groups
as its list: the array is never turned into a list of runs on the common
path, and where a negative value shifts the whole history the runs given
so far, arrays or not, are joined and grouped again from scratch.  A state
saved without copies (the worker encodes it at once) is the copied one.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from sphinxcontrib_trending.analysis.classify import classify
from sphinxcontrib_trending.analysis.incremental import IncrementalClassifier


def _array(runs: list[float | None]) -> np.ndarray:
    return np.array([np.nan if run is None else run for run in runs], dtype=np.float64)


def _runs(seed: int) -> list[float | None]:
    rng = random.Random(seed)
    runs: list[float | None] = [rng.gauss(100.0 if i < 25 else 80.0, 1.0) for i in range(50)]
    runs[7] = None
    return runs


@pytest.mark.parametrize("newest", [[81.0], [None, 79.5], [500.0], [-3.0], [-3.0, 80.0]])
def test_a_continued_array_groups_as_the_list(newest: list[float | None]) -> None:
    """Numbers, a missing run, a new largest value, a negative one (grouped afresh)."""
    runs = _runs(5)
    before = IncrementalClassifier()
    before.extend(_array(runs))
    saved = before.save()
    assert saved is not None
    grown = [*runs, *newest]
    _, result = IncrementalClassifier.continued(_array(grown), len(runs), saved)
    assert result == classify(grown)


def test_arrays_and_lists_given_in_turn_group_as_their_runs_together() -> None:
    runs = _runs(9)
    classifier = IncrementalClassifier()
    classifier.extend(_array(runs[:20]))
    classifier.extend(runs[20:40])
    assert classifier.extend(_array([*runs[40:], -1.0])) == classify([*runs, -1.0])
    assert classifier.extend(_array([2.0])) == classify([*runs, -1.0, 2.0])
    each = IncrementalClassifier()
    each.extend(_array(runs[:30]))
    groupings = list(each.extend_each(_array([*runs[30:], -2.0, 5.0])))
    assert groupings[-1]() == classify([*runs, -2.0, 5.0])


def test_a_state_saved_without_copies_encodes_as_the_copied_one() -> None:
    runs = _runs(13)
    classifier = IncrementalClassifier()
    classifier.extend(_array(runs))
    copied, viewed = classifier.save(), classifier.save(copy=False)
    assert copied is not None and viewed is not None
    encoded = copied.to_bytes()
    assert viewed.to_bytes() == encoded
    classifier.extend(_array([60.0, 61.0, 59.5]))  # the search goes on in place
    assert copied.to_bytes() == encoded  # a copy is not moved by it
    assert not np.shares_memory(copied.history_key, viewed.history_key)
