"""prepare_runs: each run's statistics exactly as the reference derives them, on every path.

Histories of floats, of trial lists with as many trials in every run (the
usual kind, with its own fast paths for few and many runs) and of anything
else go through different code; all must give the reference's numbers to
the last bit.
"""

from __future__ import annotations

import math

import jumpavg
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sphinxcontrib_trending.analysis.runs import FEW_RUNS, RunStatistics, prepare_runs
from sphinxcontrib_trending.ingest.trials import Trials

VALUES = st.floats(0.0, 1e9, allow_nan=False) | st.sampled_from((0.0, 1.0, 3.0, 1e7))


def expected(runs: list) -> tuple[list[int], list[int], list[float], list[float], list[int]]:
    """Present runs, sizes, averages, stdevs and missing runs from the reference's Welford."""
    present, sizes, avgs, stdevs, missing = [], [], [], [], []
    for index, run in enumerate(runs):
        trials = [] if run is None else [run] if isinstance(run, float) else list(run)
        trials = [float(trial) for trial in trials if not math.isnan(trial)]
        if not trials:
            missing.append(index)
            continue
        stats = jumpavg.AvgStdevStats.for_runs(trials)
        present.append(index)
        sizes.append(stats.size)
        avgs.append(stats.avg)
        stdevs.append(stats.stdev)
    return present, sizes, avgs, stdevs, missing


def assert_prepared_like_the_reference(runs: list) -> None:
    prepared = prepare_runs(runs)
    present, sizes, avgs, stdevs, missing = expected(runs)
    assert prepared.present.tolist() == present
    assert prepared.sizes.tolist() == sizes
    assert prepared.avgs.tolist() == avgs
    assert prepared.stdevs.tolist() == stdevs
    assert prepared.missing == tuple(missing)
    assert prepared.run_count == len(runs)
    values = [
        value
        for run in runs
        if run is not None
        for value in ([run] if isinstance(run, float) else run)
        if not math.isnan(value)
    ]
    assert prepared.max_value == (max(values) if values else 0.0)


@st.composite
def equal_trial_runs(draw: st.DrawFn) -> list:
    """Runs of as many trials each (tuples, lists or packed), some missing, maybe NaN trials."""
    width = draw(st.integers(1, 6))
    length = draw(st.sampled_from((1, 2, FEW_RUNS, FEW_RUNS + 1, 30)))
    container = draw(st.sampled_from((tuple, list, "packed")))
    nan = draw(st.booleans()) and draw(st.booleans())
    runs: list = []
    for _ in range(length):
        if draw(st.integers(0, 9)) == 0:
            runs.append(None)
            continue
        trials = draw(st.lists(VALUES, min_size=width, max_size=width))
        if nan and draw(st.booleans()):
            trials[draw(st.integers(0, width - 1))] = math.nan
        if container == "packed":
            runs.append(Trials(np.array(trials, dtype=np.float64).tobytes()))
        else:
            runs.append(container(trials))
    return runs


@settings(max_examples=300, deadline=None)
@given(equal_trial_runs())
def test_runs_of_equal_trials_get_the_references_statistics(runs: list) -> None:
    assert_prepared_like_the_reference(runs)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.none()
        | VALUES
        | st.just(math.nan)
        | st.lists(VALUES | st.just(math.nan), max_size=5)
        | st.lists(VALUES, min_size=1, max_size=5).map(tuple),
        max_size=30,
    )
)
def test_any_mix_of_runs_gets_the_references_statistics(runs: list) -> None:
    assert_prepared_like_the_reference(runs)


def test_numbers_of_other_types_are_taken_as_floats() -> None:
    runs = [3, (1, 2.5), [np.float64(4.0), 2.0], np.float32(1.5), None]
    prepared = prepare_runs(runs)
    assert prepared.present.tolist() == [0, 1, 2, 3]
    assert prepared.avgs.tolist() == [3.0, 1.75, 3.0, 1.5]
    assert prepared.missing == (4,)


@pytest.mark.parametrize(
    ("runs", "message"),
    [
        ([(1.0, 2.0), (1.0, True)], "run 1, trial 1"),
        ([1.0, "2.0"], "run 1: expected a number"),
        ([(1.0,), ("2.0",)], "run 1, trial 0"),
        ([1.0, True], "run 1: expected a number"),
    ],
)
def test_a_value_that_is_not_a_number_is_refused_naming_its_run(runs: list, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        prepare_runs(runs)


def test_an_infinite_trial_is_refused_naming_its_run() -> None:
    runs = [(1.0, 2.0)] * 5 + [(1.0, math.inf)]
    with pytest.raises(ValueError, match="run 5: infinite value"):
        prepare_runs(runs)


def test_run_statistics_read_as_the_list_of_python_tuples_they_replace() -> None:
    """The outlier stage prices merges with Python numbers: each run reads back as the
    ``(size, avg, stdev)`` the lists held, of the same types, one by one or by slice."""
    prepared = prepare_runs([[1.0, 2.0, 4.0], None, 3.5, [2.0, 2.0]])
    listed = list(
        zip(prepared.sizes.tolist(), prepared.avgs.tolist(), prepared.stdevs.tolist(), strict=True)
    )
    statistics = RunStatistics(prepared)
    assert len(statistics) == 3
    assert [statistics[index] for index in range(3)] == listed
    assert statistics[-1] == listed[-1]
    assert statistics[1:] == listed[1:]
    assert list(statistics) == listed
    assert all(
        type(value) is type(expected)
        for run, expected_run in zip(statistics, listed, strict=True)
        for value, expected in zip(run, expected_run, strict=True)
    )


@given(st.lists(VALUES | st.none() | st.floats(-1e9, 0.0), max_size=40))
def test_an_array_of_numbers_is_prepared_as_the_list_of_them(runs: list) -> None:
    """A grouping job's runs, one array with NaN where missing, take their own path."""
    array = np.array([np.nan if run is None else run for run in runs], dtype=np.float64)
    fast, listed = prepare_runs(array), prepare_runs(runs)
    assert fast.present.tolist() == listed.present.tolist()
    assert fast.sizes.tolist() == listed.sizes.tolist()
    assert fast.avgs.tolist() == listed.avgs.tolist()
    assert fast.stdevs.tolist() == listed.stdevs.tolist()
    assert (fast.run_count, fast.max_value, fast.missing, fast.offset) == (
        listed.run_count,
        listed.max_value,
        listed.missing,
        listed.offset,
    )


@pytest.mark.parametrize("bad", [math.inf, -math.inf, 2e100])
def test_an_array_with_an_unusable_value_names_its_run(bad: float) -> None:
    with pytest.raises(ValueError, match=r"^run 2: "):
        prepare_runs(np.array([1.0, np.nan, bad, 3.0]))
