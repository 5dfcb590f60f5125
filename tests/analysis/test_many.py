"""Classifying many series: same answers in-process and on workers, and only what changed."""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from sphinxcontrib_trending.analysis import many as series
from sphinxcontrib_trending.analysis.classification_json import classification_from_json
from sphinxcontrib_trending.analysis.classify import Classification, Group, classify
from sphinxcontrib_trending.analysis.excluded import ExcludedRun, Exclusions
from sphinxcontrib_trending.analysis.history import TestHistory as History
from sphinxcontrib_trending.analysis.identity import GroupingSpec
from sphinxcontrib_trending.analysis.many import (
    SeriesCache,
    SeriesJob,
    classify_series,
)
from sphinxcontrib_trending.analysis.summary import run_samples
from sphinxcontrib_trending.analysis.test_run import ColumnRuns, Run, RunColumns
from sphinxcontrib_trending.ingest.json_documents import json_bytes, json_value
from tests.forks import forks_of

SETTINGS = GroupingSpec(samples="runs", search="exact", direction="higher", sbps=None)


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
    """Identities grouped from scratch (not extended from a saved search), in order."""
    classified: list[str] = []
    real = series.classify_job

    def counting(job: SeriesJob) -> object:
        classified.append(job.identity)
        return real(job)

    monkeypatch.setattr(series, "classify_job", counting)
    return classified


def count_extensions(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """(identity, runs the saved search had seen) of each series extended from one."""
    extended: list[tuple[str, int]] = []
    real = series.extend_jobs

    def counting(jobs: list[SeriesJob], seen: list[int], *states: object) -> object:
        extended.extend((job.identity, runs) for job, runs in zip(jobs, seen, strict=True))
        return real(jobs, seen, *states)  # type: ignore[arg-type]

    monkeypatch.setattr(series, "extend_jobs", counting)
    return extended


def cache_file(folder: Path) -> Path:
    return SeriesCache(folder, "scope").path  # type: ignore[return-value]


def searches_index(cache: SeriesCache) -> tuple[Path, dict]:
    """The cache's index of saved searches: its file and the document in it."""
    index_path = cache.searches.index_path
    assert index_path is not None
    return index_path, json.loads(index_path.read_text())


def test_in_process_and_two_workers_give_what_classify_gives() -> None:
    jobs = make_jobs(series.MIN_PARALLEL + 6)
    expected = [direct(job) for job in jobs]
    assert classify_series(jobs, SeriesCache(None, "a")) == expected
    assert classify_series(jobs, SeriesCache(None, "a"), workers=2) == expected
    assert any(len(result.groups) > 1 for result in expected)


@pytest.mark.parametrize(("cached", "forked"), [(7, []), (6, [2]), (0, [2])])
def test_the_workers_helper_is_forked_only_when_enough_series_are_missing(
    monkeypatch: pytest.MonkeyPatch, cached: int, forked: list[int]
) -> None:
    """Fewer missing series than :data:`.MIN_PARALLEL` are grouped here: no helper
    process is forked for them, to load the compiled search for nothing."""
    jobs = make_jobs(series.MIN_PARALLEL + 6)
    cache = SeriesCache(None, "a")
    classify_series(jobs[:cached], cache)
    counts = forks_of(series, monkeypatch)
    assert classify_series(jobs, cache, workers=2) == [direct(job) for job in jobs]
    assert counts == forked


@pytest.mark.parametrize(
    "settings",
    [
        SETTINGS,
        replace(SETTINGS, search="jumpavg"),
        replace(SETTINGS, direction="lower", outlier_runs=0),
        replace(SETTINGS, sbps=8.0, calibration="spread"),
        replace(SETTINGS, samples="trials"),
    ],
)
def test_series_extended_on_the_helper_s_workers_group_as_from_scratch(
    tmp_path: Path, settings: GroupingSpec
) -> None:
    """Every series gained a run and is extended from its saved search on workers
    forked from the helper: the groupings of a search from scratch, in-process."""
    jobs = [replace(job, settings=settings) for job in make_jobs(series.MIN_PARALLEL + 6)]
    jobs[0] = replace(jobs[0], samples=(*jobs[0].samples[:-1], 5e6))  # a new largest value
    jobs[1] = replace(jobs[1], samples=(*jobs[1].samples[:-1], 0.2e6))  # starts a group
    jobs[2] = replace(jobs[2], samples=(*jobs[2].samples[:-1], None))  # measured nothing
    jobs[3] = replace(jobs[3], samples=jobs[3].samples[-2:])  # two runs in all
    if settings.samples == "trials":
        jobs = [replace(job, samples=_as_trials(job.samples)) for job in jobs]
    before = [replace(job, samples=job.samples[:-1]) for job in jobs]
    classify_series(before, SeriesCache(tmp_path, "scope"), workers=2)
    extended = classify_series(jobs, SeriesCache(tmp_path, "scope"), workers=2)
    assert extended == classify_series(jobs, SeriesCache(None, "scope"))


@pytest.mark.parametrize("workers", [None, 2])
def test_each_classification_is_handed_on_once_as_soon_as_it_is_known(workers: int | None) -> None:
    """A page summarises each series as its grouping arrives, while the workers group the
    rest: every job's, cached or computed, once, the one the list returns."""
    jobs = make_jobs(series.MIN_PARALLEL + 6)
    cache = SeriesCache(None, "a")
    classify_series(jobs[:5], cache)  # five cached, the rest computed
    handed: list[tuple[int, object]] = []
    found = classify_series(
        jobs, cache, workers=workers, each=lambda number, result: handed.append((number, result))
    )
    assert found == [direct(job) for job in jobs]
    computed = [number for number, _ in handed[: len(jobs) - 5]]
    assert computed == list(range(5, len(jobs)))  # as they arrive, before the cached ones
    assert sorted(handed, key=lambda pair: pair[0]) == list(enumerate(found))


def test_a_slow_start_of_the_workers_is_told_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first grouping of an install compiles the search for seconds, on the helper:
    the build is told while it waits, and the groupings are the same."""
    from sphinxcontrib_trending.engine import ready_workers

    loading = series.load_grouping

    def slow_load() -> None:
        time.sleep(1.0)
        loading()

    monkeypatch.setattr(series, "load_grouping", slow_load)
    monkeypatch.setattr(ready_workers, "SLOW_SETUP", 0.1)
    jobs = make_jobs(series.MIN_PARALLEL + 6)
    told: list[str] = []
    found = classify_series(
        jobs, SeriesCache(None, "a"), workers=2, slow_setup=lambda: told.append("slow")
    )
    assert found == [direct(job) for job in jobs]
    assert told == ["slow"]
    told.clear()
    monkeypatch.setattr(series, "load_grouping", loading)
    monkeypatch.setattr(ready_workers, "SLOW_SETUP", 30.0)
    classify_series(jobs, SeriesCache(None, "a"), workers=2, slow_setup=lambda: told.append("x"))
    assert told == []


def _as_trials(samples: tuple) -> tuple:
    """Each run as three trials around its value (``None`` stays missing)."""
    return tuple(
        None if value is None else (value * 0.99, value, value * 1.01) for value in samples
    )


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
    changed[3] = SeriesJob(jobs[3].identity, (5e5, *jobs[3].samples[1:]), SETTINGS)
    again = classify_series(changed, SeriesCache(tmp_path, "scope"))
    assert classified == [jobs[3].identity]
    assert again[3] == direct(changed[3])
    assert again[:3] + again[4:] == first[:3] + first[4:]
    # one entry per series identity: the changed series replaced its own entry
    assert len(json.loads(cache_file(tmp_path).read_text())["entries"]) == 10


def test_a_series_that_gained_runs_is_extended_from_its_saved_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daily case: one new run per series is one search step, not a new search."""
    jobs = make_jobs(series.MIN_PARALLEL + 2)
    classify_series(jobs, SeriesCache(tmp_path, "scope"))
    classified = count_classifications(monkeypatch)
    extended = count_extensions(monkeypatch)
    grown = [
        SeriesJob(job.identity, (*job.samples, 4e5 if number % 2 else None, 1e6), SETTINGS)
        for number, job in enumerate(jobs)
    ]
    results = classify_series(grown, SeriesCache(tmp_path, "scope"), workers=2)
    assert results == [direct(job) for job in grown]
    assert classified == []
    # forked workers record nothing here: run in-process to see who was extended
    more = [SeriesJob(job.identity, (*job.samples, 9e5), SETTINGS) for job in grown[:3]]
    assert classify_series(more, SeriesCache(tmp_path, "scope")) == [direct(j) for j in more]
    assert extended == [(job.identity, 42) for job in grown[:3]]
    assert classified == []


def test_a_grouping_decodes_only_the_entries_it_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new build, where every series gained a run, uses no cached grouping: decoding
    them all was a tenth of its grouping process's work.  A damaged entry no series asks
    for is still dropped when the file is written again."""
    jobs = make_jobs(6)
    classify_series(jobs, SeriesCache(tmp_path, "scope"))
    document = json.loads(cache_file(tmp_path).read_text())
    document["entries"]["mrr/gone"] = {"content": "x", "classification": {"groups": 1}}
    cache_file(tmp_path).write_text(json.dumps(document))
    decoded: list[object] = []
    real = series.classification_from_json
    monkeypatch.setattr(series, "classification_from_json", lambda e: decoded.append(e) or real(e))
    grown = [SeriesJob(job.identity, (*job.samples, 1e6), SETTINGS) for job in jobs]
    assert classify_series(grown, SeriesCache(tmp_path, "scope")) == [direct(j) for j in grown]
    assert len(decoded) == 1  # the damaged one, checked before the file is written again
    assert set(json.loads(cache_file(tmp_path).read_text())["entries"]) == {
        job.identity for job in jobs
    }
    decoded.clear()
    assert classify_series(grown, SeriesCache(tmp_path, "scope")) == [direct(j) for j in grown]
    assert len(decoded) == len(grown)  # an unchanged build: each used, decoded once


def test_the_grouping_process_never_holds_the_saved_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers read and write the states' files, one per batch; the cache keeps an index."""
    jobs = make_jobs(series.MIN_PARALLEL + 2)
    cache = SeriesCache(tmp_path, "scope")
    classify_series(jobs, cache, workers=2)
    folder = cache.searches.folder
    assert folder is not None
    files = sorted(path.name for path in folder.iterdir())
    assert 1 < len(files) < len(jobs) / 4  # a file per batch of series
    index = searches_index(cache)[1]["searches"]
    assert sorted({entry[2] for entry in index.values()}) == files
    assert all(index[job.identity][1] == len(job.samples) for job in jobs)
    assert max(len(json.dumps(entry)) for entry in index.values()) < 200  # places, not states
    extended = count_extensions(monkeypatch)
    grown = [SeriesJob(job.identity, (*job.samples, 9e5), SETTINGS) for job in jobs[:3]]
    assert classify_series(grown, cache) == [direct(job) for job in grown]
    assert extended == [(job.identity, len(job.samples)) for job in jobs[:3]]
    after = sorted(path.name for path in folder.iterdir())
    # the batch files keep their other series' states; each extended series has a new file
    assert set(files) < set(after) and len(after) == len(files) + 3
    index = searches_index(cache)[1]["searches"]
    assert sorted({entry[2] for entry in index.values()}) == after


def test_a_daily_build_replaces_every_batch_file(tmp_path: Path) -> None:
    """When every series gains a run, no old file is named any more and none is left."""
    jobs = make_jobs(series.MIN_PARALLEL + 2)
    cache = SeriesCache(tmp_path, "scope")
    classify_series(jobs, cache, workers=2)
    folder = cache.searches.folder
    assert folder is not None
    before = {path.name for path in folder.iterdir()}
    grown = [SeriesJob(job.identity, (*job.samples, 9e5), SETTINGS) for job in jobs]
    assert classify_series(grown, SeriesCache(tmp_path, "scope"), workers=2) == [
        direct(job) for job in grown
    ]
    after = {path.name for path in folder.iterdir()}
    assert not before & after and len(after) == len(before)


def test_a_batch_deletes_the_files_it_read_whole_before_it_writes_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Their memory is then free for the new states (see search_store's description)."""
    jobs = make_jobs(4)
    classify_series(jobs, SeriesCache(tmp_path, "scope"))  # in-process: a file per series
    searches = SeriesCache(tmp_path, "scope").searches
    old = {job.identity: searches.ref(searches.saved(job.identity)).path for job in jobs}  # type: ignore[arg-type]
    there_at_write: list[bool] = []
    real = series.write_states

    def noting(folder: Path, states: list[tuple[str, str, bytes]]) -> object:
        there_at_write.extend(old[identity].exists() for identity, _, _ in states)
        return real(folder, states)

    monkeypatch.setattr(series, "write_states", noting)
    grown = [SeriesJob(job.identity, (*job.samples, 1e6), SETTINGS) for job in jobs]
    assert classify_series(grown, SeriesCache(tmp_path, "scope")) == [direct(j) for j in grown]
    assert there_at_write == [False] * len(jobs)


def test_a_file_a_batch_read_in_part_stays_for_the_series_it_also_holds(tmp_path: Path) -> None:
    jobs = make_jobs(series.MIN_PARALLEL + 2)
    classify_series(jobs, SeriesCache(tmp_path, "scope"), workers=2)  # files of several series
    grown = [
        SeriesJob(job.identity, (*job.samples, 1e6), SETTINGS) if number % 3 == 0 else job
        for number, job in enumerate(jobs)
    ]
    cache = SeriesCache(tmp_path, "scope")
    assert classify_series(grown, cache, workers=2) == [direct(job) for job in grown]
    _, document = searches_index(cache)
    folder = cache.searches.folder
    assert folder is not None
    assert len(document["searches"]) == len(jobs)
    assert all((folder / entry[2]).is_file() for entry in document["searches"].values())


def test_a_grouping_stopped_midway_saves_what_it_grouped(tmp_path: Path) -> None:
    """Its workers deleted the searches they replaced: the index names the new ones."""
    jobs = make_jobs(4)
    classify_series(jobs, SeriesCache(tmp_path, "scope"))
    grown = [SeriesJob(job.identity, (*job.samples, 1e6), SETTINGS) for job in jobs]

    def stop_at_the_second(number: int, _: Classification) -> None:
        if number == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        classify_series(grown, SeriesCache(tmp_path, "scope"), each=stop_at_the_second)
    cache = SeriesCache(tmp_path, "scope")
    assert [cache.get(job) for job in grown[:2]] == [direct(job) for job in grown[:2]]
    searches = cache.searches
    for job in grown[:2]:
        saved = searches.saved(job.identity)
        assert saved is not None and saved.runs == len(job.samples)
        assert searches.ref(saved).path.is_file()


def test_an_older_run_that_changed_or_a_damaged_search_means_a_fresh_grouping(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = make_jobs(4)
    classify_series(jobs, SeriesCache(tmp_path, "scope"))
    searches = SeriesCache(tmp_path, "scope").searches
    damaged = searches.ref(searches.saved(jobs[1].identity)).path  # type: ignore[arg-type]
    damaged.write_bytes(damaged.read_bytes()[:-8])  # a state short of its length
    searches.ref(searches.saved(jobs[3].identity)).path.unlink()  # type: ignore[arg-type]
    classified = count_classifications(monkeypatch)
    grown = [SeriesJob(job.identity, (*job.samples, 1e6), SETTINGS) for job in jobs]
    grown[2] = SeriesJob(jobs[2].identity, (2e6, *jobs[2].samples[1:], 1e6), SETTINGS)
    assert classify_series(grown, SeriesCache(tmp_path, "scope")) == [direct(j) for j in grown]
    # 0 extended; 1's search does not load; 2's first run is not what the search saw; 3's is gone
    assert classified == [jobs[1].identity, jobs[2].identity, jobs[3].identity]


def test_a_state_file_name_the_index_did_not_make_is_never_read(tmp_path: Path) -> None:
    jobs = make_jobs(4)
    cache = SeriesCache(tmp_path, "scope")
    classify_series(jobs, cache)
    index_path, document = searches_index(cache)
    document["searches"][jobs[0].identity][2] = "../../outside.state"
    document["searches"][jobs[1].identity][1] = "many"
    document["searches"][jobs[2].identity][3] = -1  # an offset before the file
    document["searches"][jobs[3].identity][4] = 0  # an empty state
    index_path.write_text(json.dumps(document))
    searches = SeriesCache(tmp_path, "scope").searches
    assert all(searches.saved(job.identity) is None for job in jobs)


def test_a_state_said_to_reach_past_its_file_means_a_fresh_grouping(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index is untrusted too: a length beyond the file is never read or allocated."""
    jobs = make_jobs(2)
    cache = SeriesCache(tmp_path, "scope")
    classify_series(jobs, cache)
    index_path, document = searches_index(cache)
    document["searches"][jobs[0].identity][4] = 10**15
    index_path.write_text(json.dumps(document))
    classified = count_classifications(monkeypatch)
    grown = [SeriesJob(job.identity, (*job.samples, 1e6), SETTINGS) for job in jobs]
    assert classify_series(grown, SeriesCache(tmp_path, "scope")) == [direct(j) for j in grown]
    assert classified == [jobs[0].identity]


def test_a_warm_build_never_reads_the_saved_searches(tmp_path: Path) -> None:
    """They are only needed for new runs: a build with none leaves their index unread."""
    jobs = make_jobs(3)
    classify_series(jobs, SeriesCache(tmp_path, "scope"))
    cache = SeriesCache(tmp_path, "scope")
    index_path = cache.searches.index_path
    assert index_path is not None and index_path.exists()
    index_path.write_text("not json {")
    assert classify_series(jobs, cache) == [direct(job) for job in jobs]
    assert index_path.read_text() == "not json {"


def test_other_settings_or_scope_are_other_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = make_jobs(4)
    classify_series(jobs, SeriesCache(tmp_path, "scope"))
    classified = count_classifications(monkeypatch)
    lower = GroupingSpec(samples="runs", search="exact", direction="lower", sbps=None)
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
    entry_file = cache_file(tmp_path)
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


@pytest.mark.parametrize("entries", [[], [("a", {"x": [1, 2]}), ('b "quoted"', None)]])
def test_cache_files_are_written_an_entry_at_a_time_as_plain_json(entries) -> None:
    head = {"format": "f", "scope": "s"}
    written = b"".join(series._json_chunks(head, "entries", iter(entries)))
    assert json.loads(written) == {**head, "entries": dict(entries)}


def test_a_prefix_s_content_is_the_content_of_a_series_of_that_prefix() -> None:
    samples = (1.0, None, (2.0, 2.5), 3, (4.0,), None)
    job = SeriesJob("mrr/test", samples, SETTINGS)
    for runs in range(len(samples) + 1):
        alone = SeriesJob("mrr/test", samples[:runs], SETTINGS)
        assert job.prefix_content(runs) == alone.content
        # a series but its newest run (a number, trials or missing): what the cache asks
        shorter = SeriesJob("mrr/test", samples[: max(runs - 1, 0)], SETTINGS)
        assert alone.prefix_content(runs - 1) == shorter.content
    # a run of one trial and a single value are different runs, as are None and 0.0
    assert SeriesJob("a", ((1.0,),), SETTINGS).content != SeriesJob("a", (1.0,), SETTINGS).content
    assert SeriesJob("a", (None,), SETTINGS).content != SeriesJob("a", (0.0,), SETTINGS).content


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ((1.0, None), (None, 1.0)),  # where a run is missing
        ((1.0, None), (1.0,)),
        (((2.0, 2.5),), (2.0, 2.5)),  # one run of two trials, two runs
        (((2.0,), (2.5,)), ((2.0, 2.5),)),
        ((None, (2.0,)), ((2.0,), None)),
    ],
)
def test_different_runs_have_different_contents(first: tuple, second: tuple) -> None:
    assert SeriesJob("a", first, SETTINGS).content != SeriesJob("a", second, SETTINGS).content
    assert SeriesJob("a", first, SETTINGS).content == SeriesJob("a", first, SETTINGS).content


def _history(runs: str) -> History:
    """A history that steps up, with a run that measured nothing and a curated one."""
    start = datetime(2026, 5, 1, tzinfo=timezone.utc)
    made = []
    for number in range(30):
        level = (1e6 if number < 18 else 1.3e6) * (1 + 0.01 * (number % 3))
        measured = number != 4
        made.append(
            Run(
                time=start + timedelta(days=number),
                job="csit-daily",
                build=str(number),
                dut_version=None,
                testbed="2n-icx",
                status="PASS" if measured else "FAIL",
                message="",
                values=(level,) if measured else (),
                average=level if measured else None,
                stdev=0.0 if measured else None,
            )
        )
    return History(
        key="2n-icx/tests.mrr",
        test_id="tests.mrr",
        name="64b-mrr",
        suite="tests",
        tags=(),
        testbed="2n-icx",
        thread_core=None,
        metric="mrr",
        unit="pps",
        runs=tuple(made) if runs == "tuples" else ColumnRuns(RunColumns.of_runs(made)),
    )


@pytest.mark.parametrize("runs", ["tuples", "columns"])
def test_a_history_s_job_is_its_run_averages_as_one_array(tmp_path: Path, runs: str) -> None:
    """The job holds the runs as one array (NaN where missing or excluded), which groups and
    hashes as the samples do, and is extended from its saved search when it gains a run."""
    exclusions = Exclusions((ExcludedRun("testbed rebooted", "excluded.toml:1", build="7"),))
    settings = GroupingSpec(exclusions=exclusions)
    history = _history(runs)
    job = SeriesJob.of("mrr/a", history, settings)
    samples = run_samples(history, "runs", exclusions)
    assert isinstance(job.samples, np.ndarray)
    assert [None if value != value else value for value in job.samples.tolist()] == samples
    assert samples[4] is None and samples[7] is None
    assert job.content == SeriesJob("mrr/a", tuple(samples), settings).content
    shorter = SeriesJob("mrr/a", job.samples[:-1], settings)
    assert job.prefix_content(len(samples) - 1) == shorter.content
    classify_series([shorter], SeriesCache(tmp_path, "scope"))
    assert classify_series([job], SeriesCache(tmp_path, "scope")) == [classify(samples)]


@pytest.mark.parametrize("newest", [None, 9e5, (9e5, 9.1e5)])
def test_a_series_of_numbers_hashes_alike_as_an_array_or_a_tuple(newest: object) -> None:
    numbers = (1.0, None, 3.5, 2.0)
    array = np.array([np.nan if value is None else value for value in numbers])
    assert SeriesJob("a", array, SETTINGS).content == SeriesJob("a", numbers, SETTINGS).content
    grown = SeriesJob("a", (*numbers, newest), SETTINGS)
    assert grown.prefix_content(len(numbers)) == SeriesJob("a", array, SETTINGS).content


def test_the_workers_encode_the_cache_entries_the_parent_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Encoding every grouping as JSON was a serial step after the parallel ones: the
    worker that grouped a series encodes its entry, and the file is what it was."""
    jobs = make_jobs(series.MIN_PARALLEL + 6)
    classify_series(jobs, SeriesCache(tmp_path / "here", "scope"))
    encoded: list[object] = []
    real = series.classification_to_json

    def counting(result: object) -> object:
        encoded.append(result)
        return real(result)  # type: ignore[arg-type]

    monkeypatch.setattr(series, "classification_to_json", counting)
    cache = SeriesCache(tmp_path / "forked", "scope")
    assert classify_series(jobs, cache, workers=2) == [direct(job) for job in jobs]
    assert encoded == []  # every entry was encoded in a worker
    assert (
        cache_file(tmp_path / "forked").read_bytes() == cache_file(tmp_path / "here").read_bytes()
    )
    cache.put(jobs[0], series.Grouped(direct(jobs[0])))  # type: ignore[arg-type]
    cache.save()
    assert len(encoded) == 1
    assert json.loads(cache_file(tmp_path / "forked").read_text()) == json.loads(
        cache_file(tmp_path / "here").read_text()
    )


def _random_classification(rng: random.Random) -> Classification:
    """A classification whose every number is a double of any magnitude a grouping gives."""

    def number() -> float:
        kind = rng.random()
        if kind < 0.1:
            return rng.choice([0.0, 5e-324, 2.2250738585072014e-308, 1e16, 1e-5, 0.1, 1 / 3])
        return rng.uniform(-1, 1) * 10 ** rng.uniform(-300, 99)

    groups = [
        Group(
            start=start,
            stop=start + 7,
            avg=abs(number()),
            stdev=abs(number()),
            size=7,
            comment="normal",
            bits_saved=None if start == 0 else number(),
            confidence=None if start == 0 else rng.random(),
            serial_correlation=None if start == 0 else rng.uniform(-1, 1),
            outliers=(start + 1,) if rng.random() < 0.3 else (),
        )
        for start in range(0, 7 * rng.randint(1, 4), 7)
    ]
    return Classification(groups, abs(number()), (3,), groups[-1].stop, unit=abs(number()))


def test_an_entry_reads_back_as_the_same_doubles() -> None:
    """Entries are written and read with orjson: every number comes back bit for bit."""
    rng = random.Random(11)
    for _ in range(300):
        result = _random_classification(rng)
        entry = json_value(series._entry("c", result))
        assert classification_from_json(entry["classification"]) == result
        assert json.loads(series._entry("c", result)) == entry


def test_an_entry_with_a_number_that_is_not_finite_is_grouped_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """orjson writes NaN as null, which an optional field reads back as None: such an
    entry is written as the standard library writes it, and refused when read."""
    jobs = make_jobs(2)
    made = classify(list(jobs[1].samples))
    odd = replace(made, groups=[replace(made.groups[0], serial_correlation=math.nan)])
    real = series.classify_job
    monkeypatch.setattr(
        series,
        "classify_job",
        lambda job: (odd, None) if job.identity == jobs[1].identity else real(job),
    )
    classify_series(jobs, SeriesCache(tmp_path, "scope"))
    monkeypatch.setattr(series, "classify_job", real)
    reread = SeriesCache(tmp_path, "scope")
    assert reread.get(jobs[0]) == direct(jobs[0])
    assert reread.get(jobs[1]) is None


def test_a_text_orjson_cannot_write_is_written_and_read_all_the_same() -> None:
    """A lone surrogate is written and read by the standard library's json instead."""
    document = {"entries": {"mrr/odd\ud800": [1, "\udfff"]}}
    assert json_value(json_bytes(document)) == document


def test_a_cache_an_earlier_release_wrote_with_nan_is_still_read(tmp_path: Path) -> None:
    """orjson refuses the NaN the standard library writes: such a document is read by
    the latter, and its other entries stand."""
    jobs = make_jobs(2)
    first = classify_series(jobs, SeriesCache(tmp_path, "scope"))
    entry_file = cache_file(tmp_path)
    document = json.loads(entry_file.read_bytes())
    document["entries"]["mrr/other"] = {"content": "x", "classification": {"bits": math.nan}}
    entry_file.write_text(json.dumps(document))
    reread = SeriesCache(tmp_path, "scope")
    assert [reread.get(job) for job in jobs] == first


def test_a_series_whose_identity_holds_a_lone_surrogate_is_grouped_saved_and_reused(
    tmp_path: Path,
) -> None:
    """A test name read from JSON may hold one: its saved search's file is named from
    the identity's bytes, which UTF-8 alone cannot give."""
    jobs = [replace(job, identity=f"{job.identity}\ud800") for job in make_jobs(3)]
    first = classify_series(jobs, SeriesCache(tmp_path, "scope"))
    reread = SeriesCache(tmp_path, "scope")
    assert [reread.get(job) for job in jobs] == first
    assert list(tmp_path.rglob("*.state")), "its saved search was written"
