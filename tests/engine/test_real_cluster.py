"""map_ordered against a real ``dask scheduler`` and two ``dask worker`` processes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sphinxcontrib_trending.analysis import many as series
from sphinxcontrib_trending.analysis.many import SeriesCache, SeriesJob, classify_series
from sphinxcontrib_trending.engine import EngineError, map_ordered, mapping
from sphinxcontrib_trending.ingest.tasks import parse_file
from tests.analysis.test_many import make_jobs
from tests.engine.cluster import Cluster, free_port, start_cluster
from tests.engine.tasks import slow_parse
from tests.engine.test_mapping import parse_jobs


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    running = start_cluster(tmp_path)
    try:
        yield running
    finally:
        running.stop()
    assert all(process.poll() is not None for process in running.processes)


def test_a_parse_through_the_cluster_equals_the_serial_parse(cluster: Cluster) -> None:
    jobs = parse_jobs()
    assert map_ordered(parse_file, jobs, scheduler=cluster.address) == map_ordered(parse_file, jobs)


def test_killing_a_worker_mid_run_still_completes_the_map(cluster: Cluster) -> None:
    jobs = parse_jobs() * 3
    victim = cluster.workers[0]

    def kill_early(done: int, total: int) -> None:
        if done == 3:
            cluster.kill(victim)

    results = map_ordered(slow_parse, jobs, scheduler=cluster.address, progress=kill_early)
    assert victim.poll() is not None, "the worker was not killed mid-run"
    assert results == map_ordered(parse_file, jobs)


def test_losing_the_scheduler_mid_run_is_a_clean_error(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mapping, "LOST_AFTER", 3.0)
    jobs = parse_jobs() * 3

    def kill_scheduler(done: int, total: int) -> None:
        if done == 2:
            cluster.kill(cluster.scheduler)

    started = time.monotonic()
    with pytest.raises(EngineError, match="scheduler"):
        map_ordered(slow_parse, jobs, scheduler=cluster.address, progress=kill_scheduler)
    assert time.monotonic() - started < 60


def test_an_unreachable_scheduler_is_a_clean_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mapping, "LOST_AFTER", 2.0)
    address = f"tcp://127.0.0.1:{free_port()}"
    with pytest.raises(EngineError, match=f"cannot reach the Dask scheduler {address}"):
        map_ordered(parse_file, parse_jobs(), scheduler=address)


def test_classifying_series_on_the_cluster_equals_in_process(cluster: Cluster) -> None:
    jobs = make_jobs(series.MIN_PARALLEL + 10)
    expected = classify_series(jobs, SeriesCache(None, "s"))
    assert classify_series(jobs, SeriesCache(None, "s"), scheduler=cluster.address) == expected


def test_a_cluster_s_workers_send_their_search_states_back_to_the_cache(
    cluster: Cluster, tmp_path: Path
) -> None:
    """They may not share the cache's folder: the states come back as bytes, written here."""
    jobs = make_jobs(series.MIN_PARALLEL + 10)
    cache = SeriesCache(tmp_path / "classified", "s")
    assert classify_series(jobs, cache, scheduler=cluster.address) == classify_series(
        jobs, SeriesCache(None, "s")
    )
    assert cache.searches.folder is not None
    before = {path.name for path in cache.searches.folder.iterdir()}
    assert len(before) == len(jobs)
    grown = [SeriesJob(job.identity, (*job.samples, 9e5), job.settings) for job in jobs]
    again = SeriesCache(tmp_path / "classified", "s")
    assert classify_series(grown, again, scheduler=cluster.address) == classify_series(
        grown, SeriesCache(None, "s")
    )
    after = {path.name for path in cache.searches.folder.iterdir()}
    assert len(after) == len(jobs) and after.isdisjoint(before)  # each state replaced
