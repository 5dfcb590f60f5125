"""``Trials`` stands in for a tuple of floats wherever the model has trial values."""

from __future__ import annotations

import itertools
import pickle
import struct
import sys
import tracemalloc

import numpy as np
import pytest

from sphinxcontrib_trending.analysis.test_run import trial_statistics
from sphinxcontrib_trending.ingest.model import Measurement
from sphinxcontrib_trending.ingest.trials import Trials

VALUES = (4609890.0, 4695225.0, -0.0, 1e-300)


def packed(values: tuple[float, ...]) -> Trials:
    return Trials(struct.pack(f"{len(values)}d", *values))


def test_trials_equal_and_hash_like_the_tuple_of_their_values() -> None:
    trials = packed(VALUES)
    assert trials == VALUES and trials == VALUES
    assert trials == packed((*VALUES[:2], 0.0, VALUES[3]))  # -0.0 == 0.0, as floats
    assert trials != VALUES[:3] and trials != packed(VALUES[:3]) and trials != list(VALUES)
    assert hash(trials) == hash(VALUES)
    assert {Measurement("mrr", "pps", VALUES): 1}[Measurement("mrr", "pps", trials)] == 1
    assert repr(trials) == repr(VALUES)


def test_trials_read_like_a_tuple() -> None:
    trials = packed(VALUES)
    assert len(trials) == 4 and list(trials) == list(VALUES)
    assert trials[0] == VALUES[0] and type(trials[0]) is float and trials[-1] == 1e-300
    assert trials[1:3] == VALUES[1:3] and type(trials[1:3]) is tuple
    assert VALUES[1] in trials and trials.index(-0.0) == 2
    with pytest.raises(IndexError):
        trials[4]
    assert trial_statistics(trials) == trial_statistics(VALUES)
    assert len(Trials(b"")) == 0 and not Trials(b"")


def test_trials_survive_pickling_and_go_to_numpy_as_a_copy() -> None:
    trials = packed(VALUES)
    again = pickle.loads(pickle.dumps(trials))
    assert type(again) is Trials and again == trials and again.statistics is None
    known = Trials(struct.pack("2d", 1.0, 3.0), statistics=(2.0, 1.0))
    assert pickle.loads(pickle.dumps(known)).statistics == (2.0, 1.0)
    assert trial_statistics(known) == (2.0, 1.0) == trial_statistics((1.0, 3.0))
    array = np.asarray(trials)
    assert array.dtype == np.float64 and array.tolist() == list(VALUES)
    array[0] = 1.0
    assert trials[0] == VALUES[0]
    assert np.asarray(trials, dtype=np.float32).dtype == np.float32


def test_only_whole_doubles_make_trials() -> None:
    with pytest.raises(ValueError, match="12 bytes are not whole doubles"):
        Trials(b"\x00" * 12)


def test_trials_within_a_shared_column_read_as_their_own_doubles() -> None:
    column = np.array([9.0, *VALUES, 7.0])
    trials = Trials.within(column, 1, 1 + len(VALUES), (2.0, 1.0))
    assert trials == VALUES and trials == packed(VALUES) and hash(trials) == hash(VALUES)
    assert len(trials) == 4 and trials[-1] == 1e-300 and trials[1:3] == VALUES[1:3]
    assert list(trials) == list(VALUES) and trials.statistics == (2.0, 1.0)
    again = pickle.loads(pickle.dumps(trials))
    assert again == trials and again.statistics == (2.0, 1.0)
    assert len(pickle.dumps(trials)) < 200  # its window, not the column
    array = np.asarray(trials)
    array[0] = 1.0
    assert array.tolist() == [1.0, *VALUES[1:]] and column[1] == VALUES[0]
    assert len(Trials.within(column, 3, 3)) == 0


def test_a_stores_trials_take_less_than_a_third_of_the_memory_of_tuples_of_floats() -> None:
    rows = [tuple(float(row * 10 + trial) for trial in range(10)) for row in range(2_000)]
    column = np.array(rows).ravel()
    bounds = list(range(0, len(column) + 1, 10))

    def traced(make):
        tracemalloc.start()
        try:
            made = make()
            return tracemalloc.get_traced_memory()[0], made
        finally:
            tracemalloc.stop()

    as_tuples, tuples = traced(lambda: [tuple(float(value) + 0.0 for value in row) for row in rows])
    as_trials, trials = traced(
        lambda: [Trials.within(column, low, high) for low, high in itertools.pairwise(bounds)]
    )
    assert trials == tuples
    assert as_trials < as_tuples / 3


def test_a_window_is_one_allocator_block_of_64_bytes() -> None:
    """A store read makes one per test run: five slots took 72 bytes, handed out as 80."""
    column = np.array(VALUES)
    assert sys.getsizeof(Trials.within(column, 0, 2)) <= 64
    assert sys.getsizeof(Trials.within(column, 0, 2, (2.0, 1.0))) <= 64
