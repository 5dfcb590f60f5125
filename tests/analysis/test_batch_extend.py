"""A batch of saved searches extended at once gives what extending them one by one gives."""

from __future__ import annotations

import dataclasses
import struct
from pathlib import Path

import numpy as np
import pytest

from sphinxcontrib_trending.analysis import many as series
from sphinxcontrib_trending.analysis.batch_extend import StateBuffer, _BatchRuns, extend_batch
from sphinxcontrib_trending.analysis.classify import Classification
from sphinxcontrib_trending.analysis.identity import GroupingSpec
from sphinxcontrib_trending.analysis.many import (
    SeriesCache,
    SeriesJob,
    SeriesTask,
    classify_batch,
    classify_job,
    classify_series,
    extend_job,
)
from sphinxcontrib_trending.analysis.runs import PreparedRuns, prepare_runs
from sphinxcontrib_trending.analysis.saved_search import MAGIC, SavedSearch

EXACT = GroupingSpec()


def history(rng: np.random.Generator, runs: int) -> np.ndarray:
    """Run averages of one of several shapes: levels, steps, spikes, drifts, missing runs."""
    shape = rng.integers(6)
    level = float(rng.choice([1.0, 250.0, 3e6]))
    noise = rng.normal(0.0, float(rng.choice([0.001, 0.02, 0.1])), runs)
    values = level * (1.0 + noise)
    if shape == 1:  # a step somewhere
        values[rng.integers(runs) :] *= float(rng.choice([0.7, 1.3]))
    elif shape == 2:  # a few spikes
        values[rng.integers(runs, size=3)] *= 1.6
    elif shape == 3:  # a drift
        values *= np.linspace(1.0, 1.2, runs)
    elif shape == 4:  # the same value again and again
        values[:] = level
    if rng.random() < 0.4:  # failed runs
        values[rng.random(runs) < 0.1] = np.nan
    return values


def saved_prefix(job: SeriesJob, seen: int) -> bytes | None:
    """The state a build after the job's first ``seen`` runs saved, if it saved one."""
    _, saved = classify_job(SeriesJob(job.identity, job.samples[:seen], job.settings))
    return None if saved is None else saved.to_bytes()


def one_by_one(job: SeriesJob, seen: int, state: bytes) -> tuple[Classification, bytes | None]:
    result, saved = extend_job(job, seen, state)
    return result, None if saved is None else saved.to_bytes()


def batched(
    jobs: list[SeriesJob], seen: list[int], states: list[bytes]
) -> list[tuple[Classification, bytes] | None]:
    answers = extend_batch(jobs, seen, StateBuffer.of(states), range(len(jobs)))
    return [None if answer is None else (answer[0], bytes(answer[1])) for answer in answers]


def compare(jobs: list[SeriesJob], seen: list[int]) -> int:
    """Assert the batch's answers are the one-by-one ones; how many the batch gave."""
    kept = [
        (job, runs, state)
        for job, runs in zip(jobs, seen, strict=True)
        if (state := saved_prefix(job, runs)) is not None
    ]
    answers = batched(*map(list, zip(*kept, strict=True)))  # type: ignore[arg-type]
    for (job, runs, state), answer in zip(kept, answers, strict=True):
        if answer is not None:
            assert answer == one_by_one(job, runs, state), job.identity
    return sum(answer is not None for answer in answers)


@pytest.mark.parametrize("seed", range(4))
def test_a_batch_of_random_histories_extends_as_each_alone(seed: int) -> None:
    rng = np.random.default_rng(seed)
    jobs, seen = [], []
    for number in range(60):
        runs = int(rng.integers(2, 90))
        jobs.append(SeriesJob(f"s{number}", history(rng, runs), EXACT))
        seen.append(runs - 1)
    assert compare(jobs, seen) >= 40


def test_a_new_run_that_starts_a_group_extends_as_alone() -> None:
    rng = np.random.default_rng(1)
    jobs = []
    for number in range(20):
        values = 100.0 * (1.0 + rng.normal(0.0, 0.01, 40))
        values[-1] *= 0.5 if number % 2 else 0.8  # below the largest value: the same model
        jobs.append(SeriesJob(f"s{number}", values, EXACT))
    assert compare(jobs, [39] * len(jobs)) == len(jobs)
    result = classify_job(jobs[0])[0]
    assert result.groups[-1].start == 39 or result.outliers == (39,)


def test_a_missing_new_run_and_a_first_run_extend_as_alone() -> None:
    rng = np.random.default_rng(2)
    missing = [SeriesJob(f"m{n}", np.append(history(rng, 30), np.nan), EXACT) for n in range(8)]
    one = [SeriesJob(f"o{n}", 5.0 - np.array([0.0, rng.random()]), EXACT) for n in range(8)]
    both = [SeriesJob(f"b{n}", np.array([3.0, np.nan, np.nan, 2.0]), EXACT) for n in range(3)]
    jobs = missing + one + both
    seen = [30] * len(missing) + [1] * len(one) + [1] * len(both)
    assert compare(jobs, seen) == len(jobs)


def test_what_the_batch_leaves_is_extended_one_by_one() -> None:
    """A new largest value, two new runs, a negative value: left to the one-by-one search."""
    rng = np.random.default_rng(3)
    base = 100.0 * (1.0 + rng.normal(0.0, 0.01, 30))
    jobs = [
        SeriesJob("larger", np.append(base, 200.0), EXACT),
        SeriesJob("two", np.append(base, [99.0, 101.0]), EXACT),
        SeriesJob("negative", np.append(base - 100.5, -0.2), EXACT),
    ]
    seen = [30, 30, 30]
    states = [saved_prefix(job, runs) or b"" for job, runs in zip(jobs, seen, strict=True)]
    assert batched(jobs, seen, states) == [None, None, None]
    grouped = classify_batch(
        tuple(SeriesTask(job, (30, state)) for job, state in zip(jobs, states, strict=True))
    )
    assert [item.classification for item in grouped] == [classify_job(job)[0] for job in jobs]


@pytest.mark.parametrize(
    "settings",
    [
        GroupingSpec(),
        GroupingSpec(direction="lower"),
        GroupingSpec(sbps=6.0),
        GroupingSpec(sbps=24.0),
        GroupingSpec(outlier_runs=0),
        GroupingSpec(outlier_runs=5),
        GroupingSpec(calibration="spread"),
        GroupingSpec(search="jumpavg"),
        GroupingSpec(samples="trials"),
    ],
    ids=lambda spec: "-".join(f"{k}={v}" for k, v in spec.fields().items() if k != "exclusions"),
)
def test_every_grouping_setting_extends_as_alone(settings: GroupingSpec, tmp_path: Path) -> None:
    """Through the cache, as a build does: the grown series grouped as from scratch, and the
    batch's states the one-by-one ones."""
    rng = np.random.default_rng(4)
    full = []
    for number in range(series.MIN_PARALLEL + 6):
        values = history(rng, 50)
        samples = (
            tuple(None if v != v else (v, v * 1.01, v * 0.99) for v in values)
            if settings.samples == "trials"
            else values
        )
        full.append(SeriesJob(f"mrr/t{number}", samples, settings))
    short = [SeriesJob(job.identity, job.samples[:-1], settings) for job in full]
    classify_series(short, SeriesCache(tmp_path, "scope"))
    expected = [classify_job(job)[0] for job in full]
    assert classify_series(full, SeriesCache(tmp_path, "scope")) == expected
    assert classify_series(full, SeriesCache(tmp_path / "2", "scope"), workers=2) == expected
    if settings.samples == "runs" and settings.search == "exact":
        # a unit of the spread changes with every run: its searches start afresh
        taken = compare(full, [49] * len(full))
        assert taken >= len(full) // 2 or settings.calibration == "spread"


def damaged(state: bytes, how: str) -> bytes:
    """A saved state broken in one of several ways."""
    if how == "magic":
        return b"x" + state[1:]
    if how == "short":
        return state[:-8]
    if how == "side":  # the survivors' count, larger than the arrays
        at = len(MAGIC) + 6 * 8 + 8
        return state[:at] + struct.pack("<q", 10**9) + state[at + 8 :]
    if how == "index":  # a predecessor beyond the runs, in the history's last entry
        decoded = SavedSearch.from_bytes(state)
        decoded.history_from[-1] = decoded.runs + 5
        return decoded.to_bytes()
    decoded = SavedSearch.from_bytes(state)  # "scale": another largest value
    return SavedSearch.assembled(
        {**decoded.__dict__, "max_value": decoded.max_value * 2}
    ).to_bytes()


@pytest.mark.parametrize("how", ["magic", "short", "side", "index", "scale"])
def test_a_damaged_state_in_a_batch_is_grouped_afresh_and_the_others_extended(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(5)
    jobs = [SeriesJob(f"s{n}", history(rng, 40), EXACT) for n in range(9)]
    states = [saved_prefix(job, 39) for job in jobs]
    assert all(state is not None for state in states)
    states[4] = damaged(states[4], how)  # type: ignore[arg-type]
    fresh: list[str] = []
    real = series.classify_job
    monkeypatch.setattr(series, "classify_job", lambda job: fresh.append(job.identity) or real(job))
    tasks = tuple(
        SeriesTask(job, (39, state), send_back=True)
        for job, state in zip(jobs, states, strict=True)
    )
    grouped = classify_batch(tasks)
    assert fresh == ["s4"]
    assert [item.classification for item in grouped] == [real(job)[0] for job in jobs]
    for number, (job, state, item) in enumerate(zip(jobs, states, grouped, strict=True)):
        if number != 4:
            assert (item.classification, item.search_state) == one_by_one(job, 39, state)
    assert grouped[4].search_state == real(jobs[4])[1].to_bytes()  # type: ignore[union-attr]


def test_states_in_a_file_are_read_into_one_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a build's workers do: from the cache's folder, every series extended in the
    batch, none alone."""
    rng = np.random.default_rng(6)
    jobs = []
    for number in range(12):
        values = history(rng, 30)
        values[-1] = np.nanmin(values[:-1])  # no new largest value: a new search's case
        jobs.append(SeriesJob(f"mrr/t{number}", values, EXACT))
    classify_series(
        [SeriesJob(j.identity, j.samples[:-1], EXACT) for j in jobs], SeriesCache(tmp_path, "scope")
    )
    cache = SeriesCache(tmp_path, "scope")
    tasks = tuple(cache.task(job) for job in jobs)
    assert all(task.resume is not None for task in tasks)
    alone: list[str] = []
    real = series.extend_job
    monkeypatch.setattr(
        series, "extend_job", lambda job, *rest: alone.append(job.identity) or real(job, *rest)
    )
    grouped = classify_batch(tasks)
    assert [item.classification for item in grouped] == [classify_job(job)[0] for job in jobs]
    assert all(item.search_at is not None for item in grouped)
    assert alone == []


def test_series_of_many_groups_extend_as_alone() -> None:
    """More groups than the batch first makes room for: its partitions' arrays grow."""
    rng = np.random.default_rng(9)
    jobs = []
    for number in range(3):
        levels = np.repeat(rng.uniform(50.0, 150.0, 60), 5)
        values = levels * (1.0 + rng.normal(0.0, 0.001, len(levels)))
        values[-1] = values[:-1].min()
        jobs.append(SeriesJob(f"s{number}", values, EXACT))
    assert compare(jobs, [len(job.samples) - 1 for job in jobs]) == len(jobs)
    assert all(len(classify_job(job)[0].groups) > 40 for job in jobs)


def test_a_batch_prepares_each_usable_series_as_prepare_runs_does() -> None:
    """The batch prepares its series' runs together, with whole-array operations (a
    second way of what :func:`.prepare_runs` does one series at a time): field for
    field the same, missing runs, a first run missing and one-run series included;
    a series with a negative or too large value is left to the one-by-one way."""
    rng = np.random.default_rng(11)
    made = [history(rng, int(rng.integers(1, 60))) for _ in range(200)]
    made[0][0] = np.nan
    made[1] = np.array([np.nan, np.nan, 5.0])
    made[2] = np.array([3.0, -1.0, 4.0])  # negative: shifted by prepare_runs
    made[3] = np.array([3.0, 1e300, 4.0])  # too large: refused by prepare_runs
    seen = [max(len(values) - 1, 0) for values in made]
    batch = _BatchRuns(made, seen)
    assert batch.usable[2] is False and batch.usable[3] is False
    for number, values in enumerate(made):
        if not batch.usable[number]:
            continue
        ours, theirs = batch.prepared(number), prepare_runs(values)
        for field in dataclasses.fields(PreparedRuns):
            mine, reference = getattr(ours, field.name), getattr(theirs, field.name)
            if isinstance(reference, np.ndarray):
                assert np.array_equal(mine, reference), (number, field.name)
            else:
                assert mine == reference, (number, field.name)
    assert sum(batch.usable) >= 190
