"""Classifying many series: same answers in-process and on workers, and only what changed."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from sphinxcontrib_trending.analysis import many as series
from sphinxcontrib_trending.analysis.classify import classify
from sphinxcontrib_trending.analysis.many import (
    ClassifySettings,
    SeriesCache,
    SeriesJob,
    classify_series,
)

SETTINGS = ClassifySettings(samples="runs", search="exact", direction="higher", sbps=None)


def make_jobs(count: int, seed: int = 7) -> list[SeriesJob]:
    rng = random.Random(seed)
    jobs = []
    for number in range(count):
        level = 1e6 * (1 + number % 5)
        values: list[float | None] = [
            level * (0.8 if run >= 20 and number % 3 == 0 else 1.0) * (1 + rng.gauss(0, 0.02))
            for run in range(40)
        ]
        values[5] = None
        jobs.append(SeriesJob(f"mrr/test{number}", tuple(values), SETTINGS))
    return jobs


def direct(job: SeriesJob) -> object:
    return classify(list(job.samples))


def count_classifications(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    classified: list[str] = []
    real = series.classify_job

    def counting(job: SeriesJob) -> object:
        classified.append(job.identity)
        return real(job)

    monkeypatch.setattr(series, "classify_job", counting)
    return classified


def test_in_process_and_two_workers_give_what_classify_gives() -> None:
    jobs = make_jobs(series.MIN_PARALLEL + 6)
    expected = [direct(job) for job in jobs]
    assert classify_series(jobs, SeriesCache(None, "a")) == expected
    assert classify_series(jobs, SeriesCache(None, "a"), workers=2) == expected
    assert any(len(result.groups) > 1 for result in expected)


def test_a_warm_cache_classifies_nothing_and_a_changed_series_only_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = make_jobs(10)
    classified = count_classifications(monkeypatch)
    first = classify_series(jobs, SeriesCache(tmp_path, "scope"))
    assert len(classified) == 10

    classified.clear()
    assert classify_series(jobs, SeriesCache(tmp_path, "scope")) == first
    assert classified == []

    changed = list(jobs)
    changed[3] = SeriesJob(jobs[3].identity, (*jobs[3].samples, 5e5), SETTINGS)
    again = classify_series(changed, SeriesCache(tmp_path, "scope"))
    assert classified == [jobs[3].identity]
    assert again[3] == direct(changed[3])
    assert again[:3] + again[4:] == first[:3] + first[4:]
    # one entry per series identity: the changed series replaced its own entry
    (entry_file,) = tmp_path.iterdir()
    assert len(json.loads(entry_file.read_text())["entries"]) == 10


def test_other_settings_or_scope_are_other_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = make_jobs(4)
    classify_series(jobs, SeriesCache(tmp_path, "scope"))
    classified = count_classifications(monkeypatch)
    lower = ClassifySettings(samples="runs", search="exact", direction="lower", sbps=None)
    flipped = [SeriesJob(job.identity, job.samples, lower) for job in jobs]
    results = classify_series(flipped, SeriesCache(tmp_path, "scope"))
    assert len(classified) == 4
    assert all(result.direction == "lower" for result in results)
    classify_series(jobs, SeriesCache(tmp_path, "other scope"))
    assert len(classified) == 8


@pytest.mark.parametrize(
    "damage",
    [
        lambda entry: entry["classification"]["groups"][0].update(avg=1e300),
        lambda entry: entry["classification"]["groups"][0].update(comment={"a": 1}),
        lambda entry: entry["classification"].update(missing="oops"),
        lambda entry: entry.update(content=None),
        lambda entry: entry.pop("classification"),
    ],
)
def test_a_damaged_entry_is_classified_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage
) -> None:
    jobs = make_jobs(3)
    first = classify_series(jobs, SeriesCache(tmp_path, "scope"))
    (entry_file,) = tmp_path.iterdir()
    document = json.loads(entry_file.read_text())
    damage(document["entries"][jobs[1].identity])
    entry_file.write_text(json.dumps(document))
    classified = count_classifications(monkeypatch)
    assert classify_series(jobs, SeriesCache(tmp_path, "scope")) == first
    assert classified == [jobs[1].identity]


def test_a_file_that_is_not_a_cache_is_ignored(tmp_path: Path) -> None:
    jobs = make_jobs(2)
    cache = SeriesCache(tmp_path, "scope")
    assert cache.path is not None
    cache.path.write_text("not json {")
    assert classify_series(jobs, SeriesCache(tmp_path, "scope")) == [direct(job) for job in jobs]
