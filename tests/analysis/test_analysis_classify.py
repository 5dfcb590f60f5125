"""classify(): defined behaviour where the reference crashes, labels, missing runs."""

from __future__ import annotations

import math
import random

import jumpavg
import numpy as np
import pytest
from analysis_series import make_series
from hypothesis import given, settings
from hypothesis import strategies as st

from sphinxcontrib_trending.analysis import Classification, Group, classify
from sphinxcontrib_trending.analysis.classify import SEARCHES


@pytest.mark.parametrize("search", SEARCHES)
def test_empty_input_has_no_groups(search) -> None:
    result = classify([], search=search, outlier_runs=0)
    assert result == Classification(
        groups=[], bits=0.0, missing=(), run_count=0, search=search, unit=None
    )


@pytest.mark.parametrize("search", SEARCHES)
@pytest.mark.parametrize("runs", [[0.0] * 5, [0, [0.0, 0.0], None, 0.0]])
def test_all_zeros_make_one_normal_group(search, runs) -> None:
    result = classify(runs, search=search)
    assert len(result.groups) == 1
    group = result.groups[0]
    assert (group.avg, group.stdev, group.comment) == (0.0, 0.0, "normal")
    assert group.start == 0
    assert group.stop == len(runs)
    assert result.bits == 0.0


@pytest.mark.parametrize("search", SEARCHES)
def test_single_run(search) -> None:
    result = classify([12.5], search=search)
    assert result.groups == [Group(0, 1, 12.5, 0.0, 1, "normal")]
    assert result.bits == jumpavg.classify([12.5]).bits
    trials = classify([[1.0, 3.0]], search=search)
    assert trials.groups == [Group(0, 1, 2.0, 1.0, 2, "normal")]


@pytest.mark.parametrize("search", SEARCHES)
@pytest.mark.parametrize("gap", [None, math.nan, float("nan"), [], [math.nan, math.nan]])
def test_missing_runs_keep_their_index_and_are_listed(search, gap) -> None:
    levels = [10.0, 10.2, 9.9, 10.1, 10.0, 10.1, 20.0, 20.3, 19.8, 20.1, 20.0, 19.9]
    runs = list(levels)
    runs.insert(3, gap)  # inside the first level
    runs.insert(7, gap)  # just before the second level starts
    runs.insert(0, gap)  # before everything
    runs.append(gap)  # after everything
    result = classify(runs, search=search)
    compact = classify(levels, search=search)
    assert result.missing == (0, 4, 8, 15)
    assert result.run_count == len(runs)
    assert result.bits == compact.bits
    assert [(g.avg, g.stdev, g.size, g.comment) for g in result.groups] == [
        (g.avg, g.stdev, g.size, g.comment) for g in compact.groups
    ]
    # the first group starts at its first measured run and spans the gaps
    # after it up to the next group; the trailing gap is outside every group
    assert [(g.start, g.stop) for g in result.groups] == [(1, 9), (9, 15)]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(SEARCHES))
def test_missing_runs_do_not_shift_the_grouping(seed, search) -> None:
    """Any gaps: same groups as the measured runs alone, mapped back by index."""
    rng = random.Random(seed)
    measured = make_series(rng, rng.randint(1, 30), 1e6, "mixed")
    runs: list = []
    index_of = []
    for run in measured:
        while rng.random() < 0.2:
            runs.append(rng.choice((None, math.nan, [])))
        index_of.append(len(runs))
        runs.append(run)
    result = classify(runs, search=search)
    compact = classify(measured, search=search)
    assert result.bits == compact.bits
    assert [g.start for g in result.groups] == [index_of[g.start] for g in compact.groups]
    assert len(result.missing) == len(runs) - len(measured)


def test_nan_trials_are_dropped_not_the_run() -> None:
    result = classify([[1.0, math.nan, 3.0]])
    assert result.groups[0].size == 2
    assert result.groups[0].avg == 2.0
    assert result.missing == ()


@pytest.mark.parametrize("search", ["exact", "jumpavg"])
@pytest.mark.parametrize("runs", [[1.0, -2.0, -2.1, 3.0], [[0.5, -0.5], [3.0, -0.5], 2.0, [7.0]]])
def test_negative_values_are_grouped_as_the_series_shifted_to_zero(search, runs) -> None:
    """The smallest value becomes 0: same groups, bits and labels; averages shifted back."""
    smallest = min(min(run) if isinstance(run, list) else run for run in runs)
    shifted = [
        [value - smallest for value in run] if isinstance(run, list) else run - smallest
        for run in runs
    ]
    result = classify(runs, search=search)
    reference = classify(shifted, search=search)
    assert [g.start for g in result.groups] == [g.start for g in reference.groups]
    assert [g.comment for g in result.groups] == [g.comment for g in reference.groups]
    assert result.bits == pytest.approx(reference.bits, rel=1e-12)
    assert result.unit == pytest.approx(reference.unit, rel=1e-12)
    for group, shifted_group in zip(result.groups, reference.groups, strict=True):
        assert group.avg == pytest.approx(shifted_group.avg + smallest, abs=1e-12)
        assert group.stdev == pytest.approx(shifted_group.stdev, abs=1e-12)


def test_a_metric_that_crosses_zero_is_trended() -> None:
    """A difference metric around 0 drops to -1: a regression, with its true average."""
    rng = random.Random(3)
    runs = [rng.gauss(0.2, 0.05) for _ in range(15)] + [rng.gauss(-1.0, 0.05) for _ in range(15)]
    result = classify(runs)
    assert [g.start for g in result.groups] == [0, 15]
    assert result.groups[1].comment == "regression"
    assert result.groups[1].avg == pytest.approx(sum(runs[15:]) / 15, abs=1e-12)
    assert classify([-3.0, -3.0]).groups[0].avg == -3.0


@pytest.mark.parametrize("value", [math.inf, -math.inf, 1e101, -1e101])
def test_infinite_and_huge_values_raise_naming_the_run(value) -> None:
    with pytest.raises(ValueError, match=r"run 2: (infinite|value .* beyond)"):
        classify([1.0, 2.0, value])


@pytest.mark.parametrize("run", ["12", b"1", {"a": 1}, True, [1.0, "x"]])
def test_non_numbers_raise_type_error(run) -> None:
    with pytest.raises(TypeError, match=r"run 1"):
        classify([1.0, run])


@pytest.mark.parametrize(("keyword", "value"), [("search", "fast"), ("direction", "up")])
def test_unknown_options_raise(keyword, value) -> None:
    with pytest.raises(ValueError, match=keyword):
        classify([1.0, 2.0], **{keyword: value})


def test_labels_follow_the_levels() -> None:
    runs = [100.0] * 10 + [50.0] * 10 + [80.0] * 10
    higher = classify(runs)
    assert [g.comment for g in higher.groups] == ["normal", "regression", "progression"]
    lower = classify(runs, direction="lower")
    assert [g.comment for g in lower.groups] == ["normal", "progression", "regression"]
    assert [(g.start, g.stop) for g in higher.groups] == [(0, 10), (10, 20), (20, 30)]


def test_group_statistics_cover_every_trial() -> None:
    runs = [[1.0, 2.0, 3.0], [2.0, 2.0]] * 3
    (group,) = classify(runs).groups
    trials = np.array([value for run in runs for value in run])
    assert group.size == len(trials)
    assert group.avg == pytest.approx(trials.mean(), rel=1e-15)
    assert group.stdev == pytest.approx(trials.std(), rel=1e-12)


def test_unit_and_sbps_change_the_resolution() -> None:
    runs = [10.0, 10.4, 10.2, 11.0, 11.3, 11.1] * 2
    default = classify(runs)
    assert default.unit == pytest.approx(11.3 / 8191)
    assert classify(runs, sbps=4).unit == pytest.approx(11.3 / 31)
    assert classify(runs, unit=0.5).unit == 0.5
    assert classify(runs, unit=0.5, sbps=4).unit == 0.5  # unit wins, as in the reference
    assert classify(runs, unit=0, sbps=0).unit == default.unit  # zero means "not given"
    assert classify(runs, unit=0.5).bits == pytest.approx(jumpavg.classify(runs, unit=0.5).bits)
    with pytest.raises(ValueError, match="unit"):
        classify(runs, unit=-1.0)


def test_numpy_input_is_accepted() -> None:
    runs = np.array([3.0, 3.1, 2.9, 9.0, 9.2, 8.8])
    assert classify(runs).groups == classify(runs.tolist()).groups
    assert classify([np.float32(1.5), np.int64(2), np.array([1.0, 2.0])]).run_count == 3


def test_the_first_bad_run_is_named_whatever_its_kind() -> None:
    """Values are checked at once over single values and trial lists: the message
    still names the earliest bad run, and the kind of its problem."""
    with pytest.raises(ValueError, match=r"^run 1: infinite value"):
        classify([(1.0, 2.0), (3.0, math.inf), 4.0, math.inf])
    with pytest.raises(ValueError, match=r"^run 0: value 1e\+101 is beyond"):
        classify([1e101, (3.0, math.inf)])
