"""Outliers: excursions of at most K runs that the bit model describes inside their group."""

from __future__ import annotations

import math
import random
import statistics

import jumpavg
import numpy as np
import pytest
from analysis_series import series_cases
from hypothesis import given, settings

from sphinxcontrib_trending.analysis import AnomalyPolicy, classify, judge, outliers
from sphinxcontrib_trending.analysis.bits import BitModel, resolve_unit
from sphinxcontrib_trending.analysis.classify import SEARCHES, Group
from sphinxcontrib_trending.analysis.confidence import merged_stats, serial_correlation_per_group
from sphinxcontrib_trending.analysis.greedy import Partition
from sphinxcontrib_trending.analysis.incremental import IncrementalClassifier
from sphinxcontrib_trending.analysis.outliers import DEFAULT_OUTLIER_RUNS, find_outliers


def flat(length: int, seed: int, level: float = 100.0, noise: float = 0.5) -> list[float]:
    rng = random.Random(seed)
    return [level + rng.gauss(0.0, noise) for _ in range(length)]


def with_excursion(start: int, length: int, value: float = 80.0) -> list[float]:
    runs = flat(30, seed=3)
    runs[start : start + length] = [value + 0.1 * index for index in range(length)]
    return runs


@pytest.mark.parametrize("search", SEARCHES)
def test_one_spike_is_an_outlier_of_its_group_not_two_changes(search) -> None:
    runs = with_excursion(12, 1)
    faithful = classify(runs, search=search, outlier_runs=0)
    assert [group.start for group in faithful.groups] == [0, 12, 13]
    assert [group.comment for group in faithful.groups] == ["normal", "regression", "progression"]
    result = classify(runs, search=search, outlier_runs=3)
    (group,) = result.groups
    assert (group.start, group.stop, group.outliers) == (0, 30, (12,))
    assert result.outliers == (12,)
    assert not any(verdict.anomaly for verdict in judge(result))
    # the group's statistics are those of the runs that stayed
    inliers = runs[:12] + runs[13:]
    assert group.size == 29
    assert group.avg == pytest.approx(statistics.fmean(inliers), rel=1e-12)
    assert group.stdev == pytest.approx(statistics.pstdev(inliers), rel=1e-9)
    assert result.bits < faithful.bits


@pytest.mark.parametrize("length", [1, 2, 3])
def test_excursions_up_to_k_runs_are_outliers(length: int) -> None:
    result = classify(with_excursion(10, length))
    assert len(result.groups) == 1
    assert result.outliers == tuple(range(10, 10 + length))


@pytest.mark.parametrize("values", [(80.0, 120.0), (120.0, 80.0), (80.0, 70.0, 121.0)])
def test_adjacent_excursions_are_outliers_not_changes(values: tuple[float, ...]) -> None:
    """Runs that leave through one odd level and come back through another: each is
    its own excursion, together one block of at most K runs."""
    runs = flat(30, seed=3)
    runs[12 : 12 + len(values)] = values
    assert len(classify(runs, outlier_runs=0).groups) == 2 + len(values)
    result = classify(runs)
    assert len(result.groups) == 1
    assert result.outliers == tuple(range(12, 12 + len(values)))


def test_a_wide_group_of_excursions_and_level_runs_is_dissolved_into_its_level() -> None:
    """The search may put odd runs and the runs between them into one wide group;
    the odd ones become outliers and the others join the level around them."""
    runs = flat(40, seed=3)
    runs[20:25] = (122.0, 111.0, 100.5, 99.1, 121.0)
    assert [group.start for group in classify(runs, outlier_runs=0).groups] == [0, 20, 25]
    result = classify(runs)
    (group,) = result.groups
    assert group.outliers == (20, 21, 24)
    inliers = [value for index, value in enumerate(runs) if index not in group.outliers]
    assert group.avg == pytest.approx(statistics.fmean(inliers), rel=1e-12)
    assert group.size == len(inliers)


def test_adjacent_excursions_longer_than_k_in_all_stay_changes() -> None:
    runs = flat(30, seed=3)
    runs[12:16] = (80.0, 80.5, 120.0, 120.5)
    result = classify(runs)
    assert result.outliers == ()
    assert [group.start for group in result.groups] == [0, 12, 14, 16]


def test_an_excursion_of_k_plus_one_runs_is_a_real_change() -> None:
    runs = with_excursion(10, DEFAULT_OUTLIER_RUNS + 1)
    result = classify(runs)
    assert result.outliers == ()
    assert [group.start for group in result.groups] == [0, 10, 14]
    assert [group.comment for group in result.groups] == ["normal", "regression", "progression"]
    # a larger K takes it
    assert classify(runs, outlier_runs=4).outliers == (10, 11, 12, 13)


def test_a_small_excursion_within_the_noise_changes_nothing() -> None:
    runs = flat(40, seed=5)
    assert classify(runs, outlier_runs=3).groups == classify(runs, outlier_runs=0).groups


def test_a_level_shift_through_a_run_between_the_levels_keeps_both_changes() -> None:
    """A | B | C with B between A's and C's levels: a ramp, not an excursion."""
    runs = [*flat(15, seed=1), 110.0, *flat(15, seed=2, level=120.0)]
    result = classify(runs)
    assert result.outliers == ()
    assert [group.start for group in result.groups] == [0, 15, 16]
    assert [group.comment for group in result.groups] == ["normal", "progression", "progression"]


@pytest.mark.parametrize(
    ("spike", "change_at", "outlier_of"),
    [
        (80.0, 16, 0),  # below both, nearer the old level: the change is the new level's
        (105.0, 16, 0),  # above both, nearer the old level: a step down with a spike first
        (140.0, 15, 1),  # above both, nearer the new level: a step up that overshoots
    ],
)
def test_an_overshoot_at_a_step_is_an_outlier_of_the_nearer_level_and_one_change(
    spike: float, change_at: int, outlier_of: int
) -> None:
    """A | B | C with B beyond both levels: the history left A, went past C's level and
    settled; one change, not a regression and a progression a run apart."""
    level = 120.0 if spike != 105.0 else 90.0
    runs = [*flat(15, seed=1), spike, *flat(15, seed=2, level=level)]
    assert len(classify(runs, outlier_runs=0).groups) == 3
    result = classify(runs)
    assert [group.start for group in result.groups] == [0, change_at]
    assert result.outliers == (15,)
    assert result.groups[outlier_of].outliers == (15,)
    expected = "progression" if level > 100.0 else "regression"
    assert [group.comment for group in result.groups] == ["normal", expected]
    assert result.groups[1].avg == pytest.approx(statistics.fmean(runs[16:]), rel=1e-12)


def test_an_excursion_then_one_run_back_then_a_step_is_an_outlier_and_one_change() -> None:
    """A | B | R | C with R one run back at A's level, 2.4 of A's deviations off: it
    costs as many bits on its own as inside A, so only the rule makes B an outlier."""
    runs = [*flat(15, seed=1), 125.0, 101.2, *flat(15, seed=2, level=80.0)]
    assert [group.start for group in classify(runs, outlier_runs=0).groups] == [0, 15, 16, 17]
    result = classify(runs)
    assert [group.start for group in result.groups] == [0, 17]
    assert result.groups[0].outliers == (15,)
    assert [group.comment for group in result.groups] == ["normal", "regression"]


def test_a_step_then_one_run_then_an_excursion_is_one_change_with_an_outlier() -> None:
    """The mirror, P | R | B | A: the new level's first run, an excursion, the level."""
    runs = [*flat(15, seed=1), 81.2, 105.0, *flat(15, seed=2, level=80.0)]
    result = classify(runs)
    assert [group.start for group in result.groups] == [0, 15]
    assert result.groups[1].outliers == (16,)
    assert [group.comment for group in result.groups] == ["normal", "regression"]


def test_a_return_too_far_from_the_level_stays_a_change() -> None:
    """R beyond three of A's deviations is no return: the changes stay."""
    runs = [*flat(15, seed=1), 125.0, 103.0, *flat(15, seed=2, level=80.0)]
    assert [group.start for group in classify(runs).groups] == [0, 15, 16, 17]


def test_spikes_at_the_end_are_provisional_changes_until_runs_come_back() -> None:
    runs = flat(30, seed=4)
    ended = [*runs, 80.0]
    result = classify(ended)
    assert [group.start for group in result.groups] == [0, 30]
    (first, last) = judge(result)
    assert last.verdict == "regression" and last.provisional
    assert not first.provisional
    # the policy's own setting still counts; K=0 marks nothing provisional
    assert not judge(classify(ended, outlier_runs=0))[-1].provisional
    assert judge(classify(ended, outlier_runs=0), AnomalyPolicy(provisional_runs=1))[-1].provisional
    # two more spikes: still provisional, three runs from the end
    longer = [*ended, 80.5, 79.5]
    assert judge(classify(longer))[-1].provisional
    # back at the old level: refuted, an outlier
    back = [*longer, *flat(3, seed=9)]
    confirmed = classify(back)
    assert len(confirmed.groups) == 1 and confirmed.outliers == (30, 31, 32)
    # or a fourth run at the new level: confirmed, a firm change
    stays = [*longer, 80.2]
    kept = judge(classify(stays))
    assert kept[-1].verdict == "regression" and not kept[-1].provisional


@pytest.mark.parametrize("search", SEARCHES)
def test_missing_runs_keep_their_place_around_an_outlier(search) -> None:
    runs: list[float | None] = list(with_excursion(12, 1))
    runs[11] = None
    runs[20] = None
    result = classify(runs, search=search, outlier_runs=3)
    assert result.outliers == (12,)
    assert result.missing == (11, 20)
    assert (result.groups[0].start, result.groups[0].stop) == (0, 30)


def test_jumpavg_mode_is_still_the_reference_on_spiky_series() -> None:
    """``search="jumpavg"`` without an explicit K is jumpavg 0.4.2, spikes and all."""
    for seed in range(5):
        runs = flat(40, seed=seed)
        for index in random.Random(seed).sample(range(1, 39), 4):
            runs[index] = 70.0
        ours = classify(runs, search="jumpavg")
        reference = jumpavg.classify(runs)
        assert ours.outliers == ()
        assert [group.size for group in ours.groups] == [group.stats.size for group in reference]
        assert [group.comment for group in ours.groups] == [group.comment for group in reference]
        for group, expected in zip(ours.groups, reference, strict=True):
            assert group.avg == pytest.approx(expected.stats.avg, rel=1e-12)
        assert ours.bits == pytest.approx(reference.bits, rel=1e-12)
        assert classify(runs, search="jumpavg", outlier_runs=3).outliers != ()


def _inliers(group: Group, start: int, stop: int) -> int:
    return sum(run not in group.outliers for run in range(start, stop))


@settings(max_examples=60, deadline=None)
@given(series_cases(max_length=30))
def test_outliers_only_ever_save_bits_and_sit_inside_their_group(case) -> None:
    runs, unit, sbps = case
    for search in SEARCHES:
        plain = classify(runs, unit=unit, sbps=sbps, search=search, outlier_runs=0)
        result = classify(runs, unit=unit, sbps=sbps, search=search, outlier_runs=2)
        edge = {
            run
            for group in result.groups
            for run in group.outliers
            if min(_inliers(group, group.start, run), _inliers(group, run + 1, group.stop)) <= 2
        }
        if not edge:
            # only the rules at steps cost bits: an overshoot (an outlier at a group's
            # edge) and a short return (at most K inlier runs between it and the edge)
            assert result.bits <= plain.bits + 1e-9 * (1.0 + abs(plain.bits))
        if not result.outliers:
            assert result.groups == plain.groups
        for group in result.groups:
            inliers = [run for run in range(group.start, group.stop) if run not in group.outliers]
            assert inliers, "a group of outliers only"
        stretch = 0
        for run in range(result.run_count):
            stretch = stretch + 1 if run in result.outliers else 0
            assert stretch <= 2


@pytest.mark.parametrize("seed", range(6))
def test_serial_correlations_are_those_of_the_inlier_runs(seed: int) -> None:
    """Each group's correlation is computed as if its outliers (and missing runs) were
    not there: the same grouping of the inlier runs alone gives the same numbers."""
    rng = random.Random(seed)
    runs: list[float | None] = [
        *flat(25, seed=seed),
        *flat(20, seed=seed + 50, level=120.0),
        *flat(25, seed=seed + 90, level=90.0),
    ]
    for index in rng.sample(range(2, 68), 4):
        runs[index] = rng.choice((60.0, 150.0))
    runs[rng.randrange(70)] = None
    result = classify(runs)
    assert result.outliers
    outliers = set(result.outliers)
    inliers = [
        value for index, value in enumerate(runs) if index not in outliers and value is not None
    ]
    starts = [
        sum(1 for index in range(group.start) if index not in outliers and runs[index] is not None)
        for group in result.groups
    ]
    expected = serial_correlation_per_group(
        np.array(inliers), starts, [group.avg for group in result.groups]
    )
    assert [group.serial_correlation for group in result.groups] == expected


def test_a_group_starting_with_an_overshoot_has_the_correlation_of_its_inliers() -> None:
    runs = [*flat(15, seed=1), 140.0, *flat(15, seed=2, level=120.0)]
    result = classify(runs)
    assert result.groups[1].start == 15 and result.groups[1].outliers == (15,)
    inliers = runs[:15] + runs[16:]
    expected = serial_correlation_per_group(
        np.array(inliers), [0, 15], [group.avg for group in result.groups]
    )
    assert [group.serial_correlation for group in result.groups] == expected


def test_the_rule_prices_the_outlier_against_two_boundaries() -> None:
    """The post-pass merges exactly when the outlier code is cheaper than the split."""
    runs = with_excursion(12, 1)
    split = classify(runs, outlier_runs=0)
    unit = resolve_unit(max(runs), None, None)
    model = BitModel(max(runs), unit, len(runs))
    partition = Partition(
        starts=tuple(group.start for group in split.groups),
        sizes=tuple(group.size for group in split.groups),
        avgs=tuple(group.avg for group in split.groups),
        stdevs=tuple(group.stdev for group in split.groups),
        bits=split.bits,
    )
    counts = [group.stop - group.start for group in split.groups]
    values = [(1, value, 0.0) for value in runs]
    found = find_outliers(partition, counts, model, 1, values)
    merged_avg = found.partition.avgs[0]
    (excursion,) = found.excursions[0]
    # flag (1 bit), position among the 28 gaps between the 29 inliers, then the
    # value coded as a one-run group against the group's average
    group = model.group_bits(found.partition.sizes[0], merged_avg, found.partition.stdevs[0], None)
    outlier = 1.0 + math.log2(28) + model.group_bits(1, excursion.stats[1], 0.0, merged_avg)
    assert found.partition.bits == pytest.approx(group + outlier, rel=1e-12)
    assert found.partition.bits < split.bits
    assert find_outliers(partition, counts, model, 0, values).partition == partition


def test_an_extended_history_finds_the_same_outliers_as_a_fresh_one() -> None:
    runs = with_excursion(12, 2)
    incremental = IncrementalClassifier()
    for index in range(len(runs)):
        assert incremental.extend(runs[index : index + 1]) == classify(runs[: index + 1])


def _longest_stretch(runs: set[int]) -> int:
    longest, length = 0, 0
    for run in range(max(runs, default=0) + 1):
        length = length + 1 if run in runs else 0
        longest = max(longest, length)
    return longest


def _naive_outliers(partition: Partition, counts: list[int], model: BitModel, k: int, values: list):
    """The rule by brute force: rescan every group after every merge, price every group anew.

    Groups are (start, stop, inlier runs, stats, excursion blocks); ``values``
    holds each run's stats.  Shares no code with the post-pass but the bit
    formula and the merged statistics.
    """
    stops = [*partition.starts[1:], partition.starts[-1] + counts[-1]]
    groups = [
        (start, stop, runs, (size, avg, stdev), ())
        for start, stop, runs, size, avg, stdev in zip(
            partition.starts,
            stops,
            counts,
            partition.sizes,
            partition.avgs,
            partition.stdevs,
            strict=True,
        )
    ]

    def total(chain) -> float:
        bits, previous = 0.0, None
        for _, _, runs, (size, avg, stdev), excursions in chain:
            bits += model.group_bits(size, avg, stdev, previous)
            for block in excursions:
                # one flag and position per block of adjacent excursions, a bit per extra one
                bits += 1.0 + math.log2(max(runs - 1, 1)) + len(block) - 1
                for _, _, (ex_size, ex_avg, ex_stdev) in block:
                    bits += model.group_bits(ex_size, ex_avg, ex_stdev, avg)
            previous = avg
        return bits

    def merged(first, second, middle=()):
        between = (tuple((group[0], group[1], group[3]) for group in middle),) if middle else ()
        return (
            first[0],
            second[1],
            first[2] + second[2],
            merged_stats(first[3], second[3]),
            first[4] + between + second[4],
        )

    def dissolved(first, noisy, second, away):
        stats, inliers, blocks = merged_stats(first[3], second[3]), first[2] + second[2], []
        for run in range(noisy[0], noisy[1]):
            if run not in away:
                stats, inliers = merged_stats(stats, values[run]), inliers + 1
            elif blocks and blocks[-1][-1][1] == run:
                blocks[-1].append((run, run + 1, values[run]))
            else:
                blocks.append([(run, run + 1, values[run])])
        between = tuple(tuple(block) for block in blocks)
        return (first[0], second[1], inliers, stats, first[4] + between + second[4])

    def dissolve_options():
        for i in range(1, len(groups) - 1):
            noisy = groups[i]
            if noisy[4] or not 2 <= noisy[2] <= 3 * k:
                continue
            level = merged_stats(groups[i - 1][3], groups[i + 1][3])[1]
            order = sorted(range(noisy[0], noisy[1]), key=lambda run: -abs(values[run][1] - level))
            best = None
            for count in range(1, len(order)):
                away = set(order[:count])
                if _longest_stretch(away) > k:
                    break
                candidate = dissolved(groups[i - 1], noisy, groups[i + 1], away)
                saved = total(groups) - total([*groups[: i - 1], candidate, *groups[i + 2 :]])
                if saved > (0.0 if best is None else best[0]):
                    best = (saved, i - 1, i + 2, candidate)
            if best is not None:
                yield best

    while True:
        options = [
            (
                total(groups) - total([*groups[: i - 1], candidate, *groups[i + width + 1 :]]),
                i - 1,
                i + width + 1,
                candidate,
            )
            for i in range(1, len(groups) - 1)
            for width in range(1, k + 1)
            if i + width < len(groups)
            and sum(runs for _, _, runs, _, _ in groups[i : i + width]) <= k
            and not any(blocks for _, _, _, _, blocks in groups[i : i + width])
            for candidate in [merged(groups[i - 1], groups[i + width], groups[i : i + width])]
        ]
        options += dissolve_options()
        saved, low, high, candidate = max(
            options, key=lambda option: option[0], default=(0.0, 0, 0, None)
        )
        if saved <= 0.0:
            return _naive_overshoots(_naive_returns(groups, k), k)
        groups[low:high] = [candidate]
        index = low
        while True:
            pairs = [(i, i + 1) for i in (index - 1, index) if i >= 0 and i + 1 < len(groups)]
            priced = [
                (
                    total(groups)
                    - total([*groups[:i], merged(groups[i], groups[j]), *groups[j + 1 :]]),
                    i,
                )
                for i, j in pairs
            ]
            saved, first = max(priced, default=(0.0, 0))
            if saved <= 0.0:
                break
            groups[first : first + 2] = [merged(groups[first], groups[first + 1])]
            index = first


def _naive_returns(groups: list, k: int) -> list:
    """Excursions between a long level and a short stretch of it next to a step join it,
    the first such shape from the left each time, until there is none."""

    def returns(level, away, back) -> bool:
        reach = 3.0 * level[3][2]
        return (
            back[2] <= k
            and sum(group[2] for group in away) <= k
            and not any(group[4] for group in away)
            and all(abs(group[3][1] - level[3][1]) > reach for group in away)
            and abs(back[3][1] - level[3][1]) <= reach
        )

    def shapes(groups: list):
        for index, level in enumerate(groups):
            if level[2] <= k:
                continue
            for back in range(index + 2, len(groups) - 1):
                if back - index - 1 <= k and returns(level, groups[index + 1 : back], groups[back]):
                    yield index, back
            for back in range(index - 2, 0, -1):
                if index - back - 1 <= k and returns(level, groups[back + 1 : index], groups[back]):
                    yield back, index

    while True:
        found = next(shapes(groups), None)
        if found is None:
            return groups
        low, high = found
        first, second = groups[low], groups[high]
        block = tuple((group[0], group[1], group[3]) for group in groups[low + 1 : high])
        groups[low : high + 1] = [
            (
                first[0],
                second[1],
                first[2] + second[2],
                merged_stats(first[3], second[3]),
                (*first[4], block, *second[4]),
            )
        ]


def _naive_overshoots(groups: list, k: int) -> list:
    """Each short group beyond both its long neighbours' levels joins the nearer one."""
    kept = [groups[0]]
    for index in range(1, len(groups)):
        start, stop, runs, stats, blocks = groups[index]
        if index + 1 == len(groups) or blocks or runs > k:
            kept.append(groups[index])
            continue
        before, after = kept[-1], groups[index + 1]
        level, low, high = stats[1], before[3][1], after[3][1]
        if before[2] <= k or after[2] <= k or (level - low) * (level - high) <= 0.0:
            kept.append(groups[index])
        elif abs(level - low) < abs(level - high):
            kept[-1] = (
                before[0],
                stop,
                before[2],
                before[3],
                (*before[4], ((start, stop, stats),)),
            )
        else:
            groups[index + 1] = (start, *after[1:4], (((start, stop, stats),), *after[4]))
    return kept


def _assert_queued_equals_naive(runs: list[float]) -> None:
    plain = classify(runs, outlier_runs=0)
    unit = resolve_unit(max(runs), None, None)
    model = BitModel(max(runs), unit, len(runs))
    partition = Partition(
        starts=tuple(group.start for group in plain.groups),
        sizes=tuple(group.size for group in plain.groups),
        avgs=tuple(group.avg for group in plain.groups),
        stdevs=tuple(group.stdev for group in plain.groups),
        bits=plain.bits,
    )
    counts = [group.stop - group.start for group in plain.groups]
    values = [(1, value, 0.0) for value in runs]
    found = find_outliers(partition, counts, model, 3, values)
    expected = _naive_outliers(partition, counts, model, 3, values)
    assert found.partition.starts == tuple(group[0] for group in expected)
    assert [[(ex.start, ex.stop) for ex in group] for group in found.excursions] == [
        [(start, stop) for block in group[4] for start, stop, _ in block] for group in expected
    ]
    assert found.partition.avgs == pytest.approx([group[3][1] for group in expected], rel=1e-12)
    assert sum(len(group) for group in found.excursions) > 0


@pytest.mark.parametrize("seed", range(8))
def test_the_queued_post_pass_equals_a_brute_force_rescan(seed: int) -> None:
    rng = random.Random(seed)
    runs, level = [], 100.0
    for _ in range(120):
        if rng.random() < 0.05:
            level = rng.uniform(60.0, 140.0)
        value = rng.gauss(level, 1.0)
        runs.append(value * rng.choice([0.7, 1.3]) if rng.random() < 0.12 else value)
    _assert_queued_equals_naive(runs)


@pytest.mark.parametrize("seed", range(3))
def test_the_queued_post_pass_equals_a_brute_force_rescan_on_returns_at_steps(seed: int) -> None:
    """Series with excursions a short return separates from a step, both ways round."""
    runs = [
        *flat(20, seed=seed),
        125.0,
        101.2,
        *flat(20, seed=seed + 1, level=80.0),
        81.2,
        105.0,
        *flat(20, seed=seed + 2, level=80.0),
    ]
    runs[60:63] = (80.9, 60.0, 58.0)
    _assert_queued_equals_naive(runs)


@pytest.mark.parametrize("seed", range(3))
def test_the_queued_post_pass_equals_a_brute_force_rescan_on_wide_groups(seed: int) -> None:
    """Series whose plain grouping has wide groups of odd and level runs to dissolve."""
    runs = [
        *flat(30, seed=seed),
        *flat(30, seed=seed + 1, level=130.0),
        *flat(30, seed=seed + 2, level=90.0),
    ]
    runs[10:15] = (122.0, 111.0, 100.5, 99.1, 121.0)
    runs[45:50] = (100.0, 140.0, 131.0, 129.5, 100.0)
    runs[70:74] = (70.0, 89.8, 90.3, 112.0)
    _assert_queued_equals_naive(runs)


@pytest.mark.parametrize("middle_runs, merger_runs", [(10, False), (9, True)])
def test_only_a_middle_group_short_enough_for_a_rule_starts_the_merger(
    middle_runs: int, merger_runs: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No rule takes an excursion from the first or last group, nor from one longer than
    DISSOLVE_RUNS x K runs: with K = 3 a middle group of 10 runs leaves the merger unrun,
    one of 9 does not (and is left alone by it: it is a level, not an excursion)."""
    ran: list[bool] = []
    real = outliers._Merger.run

    def noted(self: outliers._Merger) -> bool:
        ran.append(True)
        return real(self)

    monkeypatch.setattr(outliers._Merger, "run", noted)
    counts = [12, middle_runs, 12]
    sizes = tuple(10 * runs for runs in counts)
    partition = Partition((0, 12, 12 + middle_runs), sizes, (100.0, 150.0, 100.0), (1.0,) * 3, 0.0)
    model = BitModel(160.0, resolve_unit(160.0, None, None), sum(sizes))
    stats = [
        (10, avg, 1.0)
        for count, avg in zip(counts, partition.avgs, strict=True)
        for _ in range(count)
    ]
    found = find_outliers(partition, counts, model, 3, stats)
    assert found.partition == partition and found.excursions == ((), (), ())
    assert bool(ran) is merger_runs
