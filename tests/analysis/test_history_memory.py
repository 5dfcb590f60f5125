"""What a history's run costs: a CSIT-sized site holds 3.6 million of them at once."""

from __future__ import annotations

import pickle
import tracemalloc
from datetime import datetime, timedelta, timezone

import pytest

from sphinxcontrib_trending.analysis.history import TestHistory as History
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.test_run import ColumnRuns, Run
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult
from sphinxcontrib_trending.ingest.store.rows import tables_by_partition
from sphinxcontrib_trending.ingest.store.stored_tests import builds_from_rows

TESTS, BUILDS, TRIALS = 50, 80, 10
T0 = datetime(2024, 3, 7, 5, 30, tzinfo=timezone.utc)


def _build(number: int) -> Build:
    """A daily build of every test, one of them failed; values differ run to run."""
    tests = tuple(
        TestResult(
            f"tests.vpp.perf.ip4.64b-{test}t-mrr",
            f"64b-{test}t-mrr",
            "tests.vpp.perf.ip4",
            ("MRR",),
            "FAIL" if test == number % TESTS else "PASS",
            T0,
            "no packets" if test == number % TESTS else "",
            measurements=(
                Measurement(
                    "mrr",
                    "pps",
                    tuple(1e7 + number * 1000 + test + trial for trial in range(TRIALS)),
                ),
            ),
            attributes=(("hosts", f"10.0.0.{test % 4}"),),
        )
        for test in range(TESTS)
    )
    time = T0 + timedelta(days=number)
    return Build(
        "csit-vpp-perf-mrr-daily-master-2n-icx", str(number), time, "24.02", "2n-icx", "a", tests
    )


def _stored() -> list[Build]:
    """The builds as a site reads them from its store (passed tests' messages dropped)."""
    built = [_build(number) for number in range(BUILDS)]
    return builds_from_rows(list(tables_by_partition(built).values()), passed_messages=False)


def _traced(builds: list[Build]) -> tuple[int, list[History]]:
    """Bytes ``histories`` keeps (what it allocated and did not free), and the histories."""
    histories(builds, "mrr")  # imports and first-use caches out of the way
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        made = histories(builds, "mrr")
        return tracemalloc.get_traced_memory()[0] - before, made
    finally:
        tracemalloc.stop()


def test_a_stored_run_costs_under_140_bytes() -> None:
    """A named tuple of 14 fields (160 bytes), a trials window holding its
    statistics (80 bytes and an offset) and the average and stdev took 342 bytes
    a run here, most of a CSIT-sized build's peak of 2.1 GB; a run sharing its
    build's and its detail's fields, 273 bytes.  Now a history keeps its runs
    as columns and makes no run, trials window or message until one is
    read: 132 bytes, with a build of 50 tests' own costs (a CSIT build
    has 2,000).  ``tracemalloc``
    counts what was asked for, a little under what the allocator hands out."""
    kept, made = _traced(_stored())
    runs = sum(len(history.runs) for history in made)
    assert runs == TESTS * BUILDS
    assert kept / runs < 140, f"{kept / runs:.0f} bytes a run"


def test_a_stored_history_makes_runs_only_when_read_and_they_share_their_build() -> None:
    made = histories(_stored(), "mrr")
    first, second = made[0], made[1]
    assert type(first.runs) is ColumnRuns and first.runs._made is None
    assert first.columns.averages.tolist()[:2] == [10000004.5, 10001004.5]
    assert first.runs._made is None, "columns are read without making runs"
    assert first.runs[0].origin is second.runs[0].origin, "one object per build"
    passed = [run for run in first.runs if run.status == "PASS"]
    assert len(passed) == BUILDS - BUILDS // TESTS - 1
    assert first.runs._made is not None and first.runs[5] is first.runs._made[5]
    failed = next(run for run in first.runs if run.status == "FAIL")
    assert failed.message == "no packets" and failed.average is not None


def test_a_run_reads_compares_and_pickles_as_its_fields() -> None:
    fields = (T0, "job", "12", "24.02", "2n-icx", "FAIL", "lost", (1.0, 3.0), 2.0, 1.0)
    run = Run(*fields, "10.0.0.1", (("p50", 4.0),), (("h", "HISTF"),), "VPP")
    assert run.fields == (*fields, "10.0.0.1", (("p50", 4.0),), (("h", "HISTF"),), "VPP")
    assert (run.time, run.job, run.build, run.dut_version, run.testbed) == fields[:5]
    assert (run.status, run.message, run.values, run.average, run.stdev) == fields[5:]
    assert run.hosts == "10.0.0.1" and run.environment == "VPP"
    assert run.percentiles == (("p50", 4.0),) and run.histograms == (("h", "HISTF"),)
    assert run.measured and run.job_build == "job/12"
    assert run == Run(*fields, "10.0.0.1", (("p50", 4.0),), (("h", "HISTF"),), "VPP")
    assert run != Run(*fields) and hash(run) != hash(Run(*fields))
    assert Run(*fields).hosts == "" and Run(*fields).percentiles == ()
    assert pickle.loads(pickle.dumps(run)) == run
    assert repr(run).startswith("Run(time=datetime.datetime(2024, 3, 7, 5, 30")
    assert repr(run).endswith("histograms=(('h', 'HISTF'),), environment='VPP')")
    assert run._asdict()["dut_version"] == "24.02" and list(run._asdict()) == list(Run._fields)
    assert Run._make(run.fields) == run and Run.__match_args__ == Run._fields
    assert Run._field_defaults == {
        "hosts": "",
        "percentiles": (),
        "histograms": (),
        "environment": "",
    }
    changed = run._replace(dut_version=None, average=None)
    assert changed.dut_version is None and not changed.measured and changed.build == "12"
    with pytest.raises(ValueError, match="unexpected field names"):
        run._replace(version="1")
    assert Run._fields[7:10] == ("values", "average", "stdev")
