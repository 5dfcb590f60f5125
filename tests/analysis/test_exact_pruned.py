"""The pruned exact search: the quadratic search's optimum, bounds that hold, a state that extends.

The quadratic search it replaced (:mod:`quadratic_exact`, itself checked
against a brute force in ``test_analysis_exact_mode``) is the oracle for
inputs too long to enumerate.
"""

from __future__ import annotations

import math
import pickle
import random
import tracemalloc

import jumpavg
import numpy as np
import pytest
from analysis_series import make_series, series_cases
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from quadratic_exact import quadratic_exact_search

from sphinxcontrib_trending.analysis import classify, exact
from sphinxcontrib_trending.analysis.bits import BitModel, resolve_unit
from sphinxcontrib_trending.analysis.exact import ExactSearch, exact_search
from sphinxcontrib_trending.analysis.incremental import IncrementalClassifier
from sphinxcontrib_trending.analysis.runs import PreparedRuns, prepare_runs

RELATIVE = 1e-9


def model_for(prepared: PreparedRuns, unit: float | None, sbps: float | None) -> BitModel:
    unit = resolve_unit(prepared.max_value, unit, sbps)
    return BitModel(prepared.max_value, unit, int(prepared.sizes.sum()))


def head(prepared: PreparedRuns, start: int, stop: int) -> PreparedRuns:
    return PreparedRuns(
        run_count=prepared.run_count,
        present=prepared.present[start:stop],
        sizes=prepared.sizes[start:stop],
        avgs=prepared.avgs[start:stop],
        stdevs=prepared.stdevs[start:stop],
        max_value=prepared.max_value,
        missing=(),
    )


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(series_cases(max_length=80))
def test_same_optimum_as_the_quadratic_search(case) -> None:
    runs, unit, sbps = case
    prepared = prepare_runs(runs)
    if prepared.max_value <= 0.0:
        return
    model = model_for(prepared, unit, sbps)
    search = ExactSearch(model)
    search.extend(prepared)
    found = search.partition()
    # the quadratic search prices with the reference search's run-by-run
    # statistics; compare its partition on the exact search's terms
    expected = search.price(quadratic_exact_search(prepared, model).starts)
    assert found.bits <= expected.bits
    if found.starts != expected.starts:
        # two partitions may cost the same bits; either is the optimum
        assert abs(found.bits - expected.bits) <= RELATIVE * (abs(expected.bits) + 1.0)


def test_same_groups_as_the_quadratic_search_on_long_histories() -> None:
    rng = random.Random(1313)
    for _ in range(12):
        magnitude = rng.choice((1.0, 1e3, 1e7))
        runs = make_series(rng, rng.randint(200, 400), magnitude, rng.choice(("floats", "mixed")))
        prepared = prepare_runs(runs)
        model = model_for(prepared, None, None)
        found = exact_search(prepared, model)
        expected = quadratic_exact_search(prepared, model)
        assert found.starts == expected.starts
        assert found.bits == pytest.approx(expected.bits, rel=RELATIVE)


def stable(length: int, rng: random.Random, spikes: float) -> list[float]:
    """One level with 1.5 % noise; a share ``spikes`` of single runs 10 to 50 % below it."""
    values = []
    for _ in range(length):
        value = rng.gauss(1.2e7, 0.015 * 1.2e7)
        if spikes and rng.random() < spikes:
            value *= rng.uniform(0.5, 0.9)
        values.append(value)
    return values


@pytest.mark.parametrize(("spikes", "longest"), [(0.0, 48), (0.02, 48), (0.0, 4)])
def test_same_groups_as_the_quadratic_search_on_stable_histories(
    monkeypatch, spikes, longest
) -> None:
    """Where the pruning keeps nearly every start (no change, or only single-run spikes)
    the search still finds the quadratic search's optimum, in the blocks those use (with
    a longest block of 4, the square root of the survivors sets their length)."""
    monkeypatch.setattr(exact, "MAX_BLOCK", longest)
    rng = random.Random(2929)
    for length in (300, 600):
        prepared = prepare_runs(stable(length, rng, spikes))
        model = model_for(prepared, None, None)
        search = ExactSearch(model)
        search.extend(prepared)
        found = search.partition()
        expected = quadratic_exact_search(prepared, model)
        assert found.starts == expected.starts
        assert found.bits == pytest.approx(expected.bits, rel=RELATIVE)
        if not spikes:
            assert search.survivors > length / 2  # what makes these histories slow


def saved_arrays(prepared: PreparedRuns, model: BitModel) -> list:
    search = ExactSearch(model)
    search.extend(prepared)
    saved = search.save()
    return [search.partition(), *(getattr(saved, name) for name in vars(saved))]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(series_cases(max_length=120))
def test_the_bound_on_a_survivors_keys_in_a_block_holds(case) -> None:
    """What ExactSearch._near skips survivors by: no state of a survivor in a block
    costs less than its floor, and none of a survivor it calls far is within
    log2(M + 1) of the cheapest survivor's state (checked on every block, with the
    skip always on)."""
    runs, unit, sbps = case
    prepared = prepare_runs(runs)
    if prepared.max_value <= 0.0:
        return
    original = ExactSearch._near

    def checking(self, inside):
        keys = self._extended(inside, None).keys
        added = self._added(inside)
        for threshold in (np.inf, -np.inf):  # the floor with the predecessors, the quicker one
            lower, _ = self._key_floor(inside, threshold)
            floor = lower[:, None] + added[None, :]
            assert (keys >= floor - 1e-9 * (np.abs(keys) + 1.0)).all()
        near = original(self, inside)
        far = np.ones(len(keys), dtype=bool)
        far[near if near is not None else slice(None)] = False
        cheapest = keys.min(axis=0)
        assert (keys[far] > cheapest + self._widest_jump - 1e-9 * (np.abs(cheapest) + 1.0)).all()
        return near

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ExactSearch, "_near", checking)
        patch.setattr(exact, "NEAR_MIN_SURVIVORS", 1)
        ExactSearch(model_for(prepared, unit, sbps)).extend(prepared)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(series_cases(max_length=120), st.integers(1, 5))
def test_a_block_taken_in_one_compiled_call_keeps_the_same_state(case, step) -> None:
    """A block whose survivors are all extended over it goes through one compiled call
    (:func:`.exact_kernels.advance_all`) where it is extended whole, and through the
    steps one by one where each run's partition is asked for (``extend_each``): the
    same state, bit for bit, and the same partitions, whether the runs come all at
    once or a few at a time (one at a time: a new build's run)."""
    runs, unit, sbps = case
    prepared = prepare_runs(runs)
    if prepared.max_value <= 0.0:
        return
    model = model_for(prepared, unit, sbps)
    whole, each = ExactSearch(model), ExactSearch(model)
    for start in range(0, prepared.count, step):
        part = head(prepared, start, min(start + step, prepared.count))
        whole.extend(part)
        partitions = [found() for found in each.extend_each(part)]
        assert partitions[-1] == whole.partition()
    one, other = whole.save(), each.save()
    assert one.to_bytes() == other.to_bytes()


@pytest.mark.parametrize("kind", ["no change", "spikes", "levels", "series"])
def test_skipping_far_survivors_inside_blocks_changes_no_state(monkeypatch, kind) -> None:
    """In blocks of the same runs, the search keeps bit for bit the same state whether it
    extends every survivor over a block or the near ones only (and the others, at the
    block's end, in place)."""
    monkeypatch.setattr(exact, "BLOCK_AREA", 1 << 40)  # the same blocks either way
    skipped = []
    original = ExactSearch._near

    def recording(self, inside):
        near = original(self, inside)
        skipped.append(0 if near is None else self.survivors - len(near))
        return near

    monkeypatch.setattr(ExactSearch, "_near", recording)
    rng = random.Random(4141)
    for length in (150, 700):
        if kind == "series":
            runs = make_series(rng, length, 1e3, "mixed")
        elif kind == "levels":
            runs = levels(length, length)[0]
        else:
            runs = stable(length, rng, 0.02 if kind == "spikes" else 0.0)
        prepared = prepare_runs(runs)
        for sbps in (None, 4.0, 20.0):
            model = model_for(prepared, None, sbps)
            monkeypatch.setattr(exact, "NEAR_MIN_SURVIVORS", 1)
            skipping = saved_arrays(prepared, model)
            monkeypatch.setattr(exact, "NEAR_MIN_SURVIVORS", 10**9)
            extending = saved_arrays(prepared, model)
            assert skipping[0] == extending[0]
            for one, other in zip(skipping[1:], extending[1:], strict=True):
                assert np.array_equal(one, other)
    assert sum(skipped) > 0


@pytest.mark.parametrize(("spikes", "most"), [(0.0, 12), (0.01, 25)])
def test_few_survivors_are_extended_run_by_run_on_a_level_with_or_without_spikes(
    monkeypatch, spikes, most
) -> None:
    """Of the hundreds of starts a long stable level keeps, a block extends few run by run:
    the far test's floors hold even where single runs spike (a count, not a timing: on a
    loaded machine it still says whether the search does the work it should)."""
    near_counts = []
    original = ExactSearch._near

    def counting(self, inside):
        near = original(self, inside)
        if self.survivors >= exact.NEAR_MIN_SURVIVORS:
            near_counts.append(self.survivors if near is None else len(near))
        return near

    monkeypatch.setattr(ExactSearch, "_near", counting)
    prepared = prepare_runs(stable(5_000, random.Random(5), spikes))
    exact_search(prepared, model_for(prepared, None, None))
    assert near_counts
    assert sum(near_counts) / len(near_counts) <= most


def peak_traced(values: list[float], outlier_runs: int = 0) -> int:
    """Peak memory of one grouping; by default the search's alone, without the
    outlier stage that runs after it."""
    classify(values, outlier_runs=outlier_runs)  # the per-size tables later series share
    tracemalloc.start()
    try:
        classify(values, outlier_runs=outlier_runs)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_stays_small_where_every_start_survives_and_on_long_histories(
    monkeypatch,
) -> None:
    """A block's arrays are bounded whatever the survivors, and the backtrack's lists
    are plain arrays: a 3,000-run history with no change took 12 MiB, 20,000 runs 79 MiB
    (the survivors' own state is most of what is left), 20,000 runs with changes
    5.7 MiB.  Blocks stay long where few survivors are near the cheapest.  The
    outlier stage reads the runs it looks at from the arrays (a list of tuples of
    every run took 4.2 MiB at 20,000 runs).  Issue 28's bound, 4 MiB at 20,000 runs,
    where every start survives: the far survivors are grown in place (in chunks
    of temporary arrays they took 7.2 MiB, and 5.5 MiB at the start of the issue's
    work), the survivors read their predecessors from the history, the search keeps
    the caller's runs without a copy, and a block reads its states where they are
    computed (3.5 MiB)."""
    assert peak_traced(stable(3000, random.Random(3), 0.0)) < 2 * 2**20
    assert peak_traced(levels(20_000, 4)[0]) < 4 * 2**20
    # the default adds the outlier stage: linear too, and within the same bound
    assert peak_traced(levels(20_000, 4)[0], outlier_runs=3) < 4 * 2**20
    blocks = []
    original = ExactSearch._advance_block

    def counted(self, *arguments, **keywords):
        blocks.append(1)
        return original(self, *arguments, **keywords)

    monkeypatch.setattr(ExactSearch, "_advance_block", counted)
    # bench_mdl's series: one block there finds every survivor near
    flat = stable(20_000, random.Random(20_260_501), 0.0)
    assert peak_traced(flat) < 4 * 2**20
    assert peak_traced(flat, outlier_runs=3) < 4 * 2**20
    assert len(blocks) < 4 * 20_000 / 8  # four classify calls


finite = st.floats(0.0, 1.0, allow_nan=False)


@settings(max_examples=3000, deadline=None)
@given(
    big_m=st.floats(1e-3, 1e8),
    n1=st.integers(1, 400),
    n2=st.integers(1, 400),
    fractions=st.tuples(finite, finite, finite, finite, finite, finite, finite),
    first=st.booleans(),
    last=st.booleans(),
)
def test_the_split_bound_holds(big_m, n1, n2, fractions, first, last) -> None:
    """The pruning lemma, on the bit formula itself.

    Group ``A+B`` after an average ``p`` and before one ``x`` costs at least
    ``A`` after ``p``, then ``B`` after any ``q``, then ``x`` after ``B``,
    minus ``theta(n1, q)``.
    """
    a1, a2, p, q, x, spread1, spread2 = (value * big_m for value in fractions)
    s1 = spread1 / 2 if n1 > 1 else 0.0
    s2 = spread2 / 2 if n2 > 1 else 0.0
    model = BitModel(big_m, 1.0, n1 + n2)
    n = n1 + n2
    merged_avg = (n1 * a1 + n2 * a2) / n
    merged_stdev = math.sqrt((n1 * s1 * s1 + n2 * s2 * s2 + n1 * n2 * (a1 - a2) ** 2 / n) / n)
    before = None if first else p

    def then(avg: float) -> float:
        return 0.0 if last else model.group_bits(1, x, 0.0, avg)

    together = model.group_bits(n, merged_avg, merged_stdev, before) + then(merged_avg)
    apart = (
        model.group_bits(n1, a1, s1, before)
        + model.group_bits(n2, a2, s2, q)
        + then(a2)
        - ExactSearch(model).split_bound(n1, q)
    )
    assert together >= apart - 1e-9 * (abs(together) + 1.0)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(series_cases(max_length=60), st.lists(st.integers(1, 15), min_size=1, max_size=8))
def test_an_extended_search_equals_a_fresh_one(case, chunks) -> None:
    runs, unit, sbps = case
    prepared = prepare_runs(runs)
    if prepared.max_value <= 0.0:
        return
    model = model_for(prepared, unit, sbps)
    search = ExactSearch(model)
    done = 0
    for chunk in chunks:
        search.extend(head(prepared, done, done + chunk))
        done = min(done + chunk, prepared.count)
        search = pickle.loads(pickle.dumps(search))
        assert search.partition() == exact_search(head(prepared, 0, done), model)
    search.extend(head(prepared, done, prepared.count))
    assert search.partition() == exact_search(prepared, model)


def test_a_run_above_the_model_needs_a_new_search() -> None:
    search = ExactSearch(BitModel(10.0, 0.01, 4))
    with pytest.raises(ValueError, match="new search"):
        search.extend(prepare_runs([1.0, 11.0]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    series_cases(max_length=50),
    st.lists(st.integers(1, 12), min_size=1, max_size=6),
    st.sampled_from(("exact", "jumpavg")),
    st.randoms(use_true_random=False),
)
def test_incremental_classification_equals_classify(case, chunks, search, rng) -> None:
    runs, unit, sbps = case
    runs = [None if rng.random() < 0.1 else run for run in runs]
    incremental = IncrementalClassifier(unit=unit, sbps=sbps, search=search)
    done = 0
    for chunk in [*chunks, len(runs)]:
        result = incremental.extend(runs[done : done + chunk])
        done = min(done + chunk, len(runs))
        assert result == classify(runs[:done], unit=unit, sbps=sbps, search=search)
        incremental = pickle.loads(pickle.dumps(incremental))
    assert incremental.run_count == len(runs)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    series_cases(max_length=70),
    st.lists(st.integers(1, 40), max_size=3),
    st.sampled_from(("exact", "jumpavg")),
    st.randoms(use_true_random=False),
)
def test_classifying_each_prefix_equals_classify(case, chunks, search, rng) -> None:
    """extend_each (check --all's one pass) gives every prefix's classify result."""
    runs, unit, sbps = case
    runs = [None if rng.random() < 0.1 else run for run in runs]
    incremental = IncrementalClassifier(unit=unit, sbps=sbps, search=search)
    done = 0
    for chunk in [*chunks, len(runs)]:
        for offset, result in enumerate(incremental.extend_each(runs[done : done + chunk])):
            assert result() == classify(
                runs[: done + offset + 1], unit=unit, sbps=sbps, search=search
            )
        done = min(done + chunk, len(runs))
        assert incremental.run_count == done
        incremental = pickle.loads(pickle.dumps(incremental))


def test_classifying_each_prefix_of_negative_runs_matches_extending_run_by_run() -> None:
    runs = [5.0, -3.0, [2.0, -1.0], None, 7.0, 4.0, -6.0, 3.0, 9.0, 8.5]
    one_by_one = IncrementalClassifier()
    expected = [one_by_one.extend([run]) for run in runs]
    assert [made() for made in IncrementalClassifier().extend_each(runs)] == expected


def test_classifying_each_prefix_searches_in_blocks(monkeypatch) -> None:
    """One pass: far fewer search blocks than runs, and a stop half-way loses nothing."""
    values, _ = levels(400, 3)
    blocks = []
    original = ExactSearch._advance_block

    def counted(self, *arguments, **keywords):
        blocks.append(1)
        return original(self, *arguments, **keywords)

    monkeypatch.setattr(ExactSearch, "_advance_block", counted)
    incremental = IncrementalClassifier()
    prefixes = incremental.extend_each(values[:200])
    for _ in range(100):
        next(prefixes)
    prefixes.close()  # abandoned half-way: the next call starts a new search
    assert incremental.run_count == 100
    assert incremental.extend(values[100:]) == classify(values)
    blocks.clear()
    results = list(IncrementalClassifier().extend_each(values))
    assert results[-1]() == classify(values)
    assert results[199]() == classify(values[:200])
    assert len(blocks) < len(values) / 4


def test_a_new_largest_value_restarts_the_search() -> None:
    runs = [10.0, 10.2, 9.9, 10.1, 30.0, 30.3, 29.8, 10.0, 10.1]
    incremental = IncrementalClassifier(outlier_runs=0)
    for index in range(len(runs)):
        result = incremental.extend(runs[index : index + 1])
        assert result == classify(runs[: index + 1], outlier_runs=0)
    assert [group.start for group in result.groups] == [0, 4, 7]


def levels(length: int, seed: int) -> tuple[list[float], tuple[int, ...]]:
    """Levels that jump every ~70 runs around one base, 1.5 % noise; and where they jump."""
    rng = random.Random(seed)
    level = 1.2e7
    values, changes = [], [0]
    for index in range(length):
        if index and rng.random() < 0.015:
            level = 1.2e7 * rng.uniform(0.6, 1.4)
            changes.append(index)
        values.append(rng.gauss(level, 0.015 * level))
    return values, tuple(changes)


def test_a_history_of_100000_runs_with_changes() -> None:
    """The pruning keeps the survivors few, and the optimum beats the true change points."""
    values, changes = levels(100_000, 5)
    prepared = prepare_runs(values)
    search = ExactSearch(model_for(prepared, None, None))
    largest_survivors = 0
    for start in range(0, prepared.count, 5_000):
        search.extend(head(prepared, start, start + 5_000))
        largest_survivors = max(largest_survivors, search.survivors)
    found = search.partition()
    assert largest_survivors < 1_000
    truth = search.price(changes)
    assert found.bits <= truth.bits
    assert len(found.starts) == pytest.approx(len(changes), rel=0.1)


@pytest.mark.parametrize(
    ("largest_block", "area"),
    [(1, 1 << 13), (5, 1 << 13), (48, 1 << 13), (200, 1 << 20), (48, 64)],
)
def test_block_size_changes_nothing(monkeypatch, largest_block, area) -> None:
    """Short blocks, long ones, or ones narrowed to two runs because many starts
    survive (an area of 64): same optimum."""
    monkeypatch.setattr(exact, "MAX_BLOCK", largest_block)
    monkeypatch.setattr(exact, "MIN_BLOCK", min(exact.MIN_BLOCK, largest_block))
    monkeypatch.setattr(exact, "BLOCK_AREA", area)
    rng = random.Random(77)
    for _ in range(25):
        runs = make_series(rng, rng.randint(50, 250), 1e3, rng.choice(("floats", "mixed")))
        prepared = prepare_runs(runs)
        model = model_for(prepared, None, None)
        found = exact_search(prepared, model)
        expected = quadratic_exact_search(prepared, model)
        assert found.bits == pytest.approx(expected.bits, rel=RELATIVE)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.floats(-50.0, 50.0, allow_nan=False) | st.none(), min_size=1, max_size=25),
    st.integers(1, 10),
)
@example([5e-324], 1)  # the resolution underflowed to zero: the model refused it
def test_a_history_with_negative_values_grows_as_classify_groups_it(runs, chunk) -> None:
    """Every value is shifted by the smallest, which a new run can move: the classifier
    gives classify's groups and averages (in the caller's terms) whatever the chunks."""
    by_chunks = IncrementalClassifier()
    for done in range(0, len(runs), chunk):
        result = by_chunks.extend(runs[done : done + chunk])
        assert result == classify(runs[: done + chunk])
    each = IncrementalClassifier()
    assert [made() for made in each.extend_each(runs)] == [
        classify(runs[: stop + 1]) for stop in range(len(runs))
    ]


@settings(max_examples=200, deadline=None)
@given(series_cases(max_length=40), st.integers(0, 39))
def test_a_group_pass_gives_the_references_statistics_in_one_go_or_two(case, cut) -> None:
    """GroupPass is the reference's Welford/Chan pass over a group given whole (runs of
    one value each take a shorter loop), and going on from a shorter pass changes nothing."""
    runs, _, _ = case
    prepared = prepare_runs(runs)
    sizes = prepared.sizes
    processed = [
        run if isinstance(run, float) else jumpavg.AvgStdevStats.for_runs(run) for run in runs
    ]
    start = cut % prepared.count
    expected = jumpavg.AvgStdevStats.for_runs(processed[start:])
    whole = exact.GroupPass(start)
    whole.advance(sizes, prepared.avgs, prepared.stdevs, prepared.count)
    assert whole.stats == (expected.size, expected.avg, expected.stdev)
    halves = exact.GroupPass(start)
    halves.advance(sizes, prepared.avgs, prepared.stdevs, (start + prepared.count + 1) // 2)
    halves.advance(sizes, prepared.avgs, prepared.stdevs, prepared.count)
    assert halves.stats == whole.stats
