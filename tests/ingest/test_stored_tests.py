"""Builds read from a store make their tests only when asked, and histories never ask."""

from __future__ import annotations

import gc
import itertools
import pickle
import random
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sphinxcontrib_trending.analysis import history as history_module
from sphinxcontrib_trending.analysis.history import histories, history_key
from sphinxcontrib_trending.ingest.merging import merge_builds
from sphinxcontrib_trending.ingest.model import (
    Build,
    Measurement,
    Problem,
    TestHead,
    TestResult,
)
from sphinxcontrib_trending.ingest.store import stored_tests
from sphinxcontrib_trending.ingest.store.rows import SharedValues, tables_by_partition
from sphinxcontrib_trending.ingest.store.stored_tests import (
    StoredTests,
    _ordered,
    _sort_keys,
    builds_from_rows,
)
from tests.ingest.test_store_rows import BUILDS, T0, texts


def _stored(builds: list[Build], *, passed_messages: bool = True) -> list[Build]:
    return builds_from_rows(
        list(tables_by_partition(builds).values()), passed_messages=passed_messages
    )


def _unmade(build: Build) -> bool:
    tests = build.tests
    return isinstance(tests, StoredTests) and tests._made is None


def test_tests_are_made_on_first_use_and_behave_as_the_tuple() -> None:
    (stored, empty) = _stored(BUILDS)
    assert _unmade(stored) and len(stored.tests) == 3 and not empty.tests
    assert stored.tests[1] == BUILDS[0].tests[1] and stored.tests[-1] == BUILDS[0].tests[-1]
    assert _unmade(stored), "one test is made alone"
    with pytest.raises(IndexError):
        stored.tests[3]
    assert stored.tests == BUILDS[0].tests and BUILDS[0].tests == stored.tests
    assert hash(stored.tests) == hash(BUILDS[0].tests)
    assert not _unmade(stored) and stored.tests[0:2] == BUILDS[0].tests[0:2]
    assert list(stored.tests) == list(BUILDS[0].tests)


def _head(test: TestResult) -> TestHead:
    return TestHead(
        test.test_id, test.name, test.suite, test.tags, test.thread_core, test.attributes
    )


def test_heads_are_the_tests_at_the_indices_in_their_order_and_make_none() -> None:
    later = replace(BUILDS[0], build="13", time=T0 + timedelta(days=1))
    stored, _, after = _stored([*BUILDS, later])
    parsed = BUILDS[0].tests
    assert stored.tests.heads([2, 0]) == [_head(parsed[2]), _head(parsed[0])]
    assert stored.tests.heads([-1]) == [_head(parsed[2])] and stored.tests.heads([]) == []
    assert after.tests.heads([0]) == [_head(later.tests[0])]
    assert _unmade(stored) and _unmade(after)
    with pytest.raises(IndexError):  # not the next build's first test
        stored.tests.heads([0, 3])


def test_rows_equal_to_a_text_are_found_by_dictionary_or_by_value_nulls_never() -> None:
    coded = pa.DictionaryArray.from_arrays(pa.array([1, None, 0, 1], pa.int32()), ["ndr", "mrr"])
    other = pa.DictionaryArray.from_arrays(pa.array([0], pa.int32()), ["ndr"])
    plain = pa.array(["mrr", None, "pdr"])
    found = stored_tests._equal_to(pa.chunked_array([coded, other]), "mrr")
    assert found.tolist() == [True, False, False, True, False]
    assert stored_tests._equal_to(pa.chunked_array([plain]), "mrr").tolist() == [True, False, False]
    assert len(stored_tests._equal_to(pa.chunked_array([], pa.string()), "mrr")) == 0


def test_a_stored_build_pickles_as_the_parsed_one() -> None:
    (stored, _) = _stored(BUILDS)
    copy = pickle.loads(pickle.dumps(stored))
    assert type(copy.tests) is tuple and copy == BUILDS[0]


def test_histories_of_stored_builds_make_only_the_newest_test_of_each() -> None:
    later = replace(BUILDS[0], build="13", time=T0 + timedelta(days=1))
    stored = _stored([BUILDS[0]]) + _stored([later])
    (history, *_) = histories(stored, "mrr")
    assert len(history.runs) == 2 and history.runs[1].values == (1.0, 2.0, 3.0)
    assert all(_unmade(build) for build in stored)
    assert history.name == "64b-1t1c-mrr" and history.tags == ()


def _daily(days: int) -> list[Build]:
    """``BUILDS[0]`` on ``days`` days, each read back from an input of its own."""
    return [
        stored
        for day in range(days)
        for stored in _stored([replace(BUILDS[0], build=str(day), time=T0 + timedelta(days=day))])
    ]


def test_stored_builds_are_read_in_one_pass_over_their_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A pass has a fixed cost: one per build made a history as long again cost that
    much more to read, whatever the new builds held."""
    passes = []
    one_pass = stored_tests._metric_rows
    monkeypatch.setattr(
        stored_tests, "_metric_rows", lambda *given: passes.append(1) or one_pass(*given)
    )
    stored = _daily(12)
    (history, *_) = histories(stored, "mrr")
    assert len(passes) == 1 and len(history.runs) == 12


def test_passes_are_bounded_and_keep_the_order_of_made_builds_between_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stored = _daily(9)
    expected = histories([replace(build, tests=tuple(build.tests)) for build in stored], "mrr")
    monkeypatch.setattr(history_module, "STORED_BATCH", 2 * len(BUILDS[0].tests))
    # a build that is not stored between them: read test by test, in its place
    stored[4] = replace(stored[4], tests=tuple(stored[4].tests))
    assert histories(_daily(9), "mrr") == expected
    assert histories(stored, "mrr") == expected


def test_a_build_no_other_shares_is_merged_as_it_is() -> None:
    stored = _stored(BUILDS)
    problems: list[Problem] = []
    merged = merge_builds(stored, problems)
    assert [a is b for a, b in zip(merged, stored, strict=True)] == [True, True]
    assert all(_unmade(build) for build in stored) and problems == []


HOST_NAMES = st.sampled_from(["hosts", "dut_type", "tg_version", "build.host", "test_type"]) | texts
results = st.builds(
    TestResult,
    test_id=st.sampled_from(["t1", "t2", "t3"]),
    name=texts,
    suite=texts,
    tags=st.lists(texts, max_size=2).map(tuple),
    status=st.sampled_from(["PASS", "FAIL"]),
    start=st.none() | st.just(T0),
    message=texts,
    measurements=st.lists(
        st.builds(
            Measurement,
            st.sampled_from(["mrr", "ndr", "latency_pdr50_forward_avg", "custom"]),
            st.sampled_from(["pps", "us"]),
            st.lists(st.floats(-1e9, 1e9), max_size=4).map(tuple),
        ),
        max_size=3,
    ).map(tuple),
    thread_core=st.none() | texts,
    attributes=st.lists(st.tuples(HOST_NAMES, texts), max_size=3).map(tuple),
)
builds = st.lists(
    st.builds(
        Build,
        job=st.sampled_from(["job-a", "job-b"]),
        build=texts,
        time=st.integers(0, 99).map(lambda hours: T0 + timedelta(hours=hours)),
        dut_version=st.none() | texts,
        testbed=st.sampled_from([None, "2n-icx", "3n-alt", "3n-oct"]),
        origin=texts,
        tests=st.lists(results, max_size=4).map(tuple),
    ),
    max_size=5,
)


@settings(max_examples=80, deadline=None)
@given(builds, st.booleans())
def test_histories_from_the_columns_equal_those_from_the_tests(
    generated: list[Build], passed_messages: bool
) -> None:
    """Failed tests, other metrics only, no values, repeated ids, several hosts: the same,
    whether each build's texts are coded apart or in dictionaries the builds share."""
    generated.sort(key=lambda build: build.time)

    def read(shared: SharedValues | None = None) -> list[Build]:
        return [
            build
            for one in generated
            for build in builds_from_rows(
                list(tables_by_partition([one]).values()), shared, passed_messages=passed_messages
            )
        ]

    stored, together = read(), read(SharedValues())
    # as parsed, or (messages of passed tests emptied) as read and made whole
    made = generated if passed_messages else [replace(b, tests=tuple(b.tests)) for b in read()]
    for metric in ("mrr", "ndr", "custom", "latency_pdr50_forward_avg"):
        for keep_failing in (False, True):
            expected = histories(made, metric, keep_failing=keep_failing)
            assert histories(stored, metric, keep_failing=keep_failing) == expected
            assert histories(together, metric, keep_failing=keep_failing) == expected
        if metric == "custom":  # a latency's percentiles are read from the tests
            assert all(_unmade(build) for build in stored if build.tests)


def _expected_summaries(
    builds: list[Build], metric: str, keep_failing: bool
) -> dict[str, tuple[str, tuple[str, ...], str | None, int]]:
    """Per history: its newest test's name and tags, its unit and run count, test by test.

    The plain reading of :func:`histories`' promise: a test's newest run
    names it, its newest measurement of ``metric`` gives the unit, and with
    ``keep_failing`` a test that failed without ever measuring anything
    gets a history too.
    """
    seen: dict[str, dict[str, Any]] = {}
    for build in builds:
        for test in build.tests:
            key = history_key(build.testbed, test.test_id)
            entry = seen.setdefault(key, {"unit": None, "metric": False, "any": False})
            entry["newest"] = test
            entry["runs"] = entry.get("runs", 0) + 1
            measurement = test.measurement(metric)
            if measurement is not None:
                entry["unit"], entry["metric"] = measurement.unit, True
            entry["any"] |= bool(test.measurements)
            entry["failed"] = entry.get("failed", False) or not test.passed
    return {
        key: (entry["newest"].name, entry["newest"].tags, entry["unit"], entry["runs"])
        for key, entry in sorted(seen.items())
        if entry["metric"] or (keep_failing and entry["failed"] and not entry["any"])
    }


@settings(max_examples=80, deadline=None)
@given(builds)
def test_histories_are_named_by_their_newest_test_and_measurement(generated: list[Build]) -> None:
    """Names, units, failed-only tests and run counts, against a test-by-test reading."""
    generated.sort(key=lambda build: build.time)
    stored = [build for one in generated for build in _stored([one])]
    for metric in ("mrr", "ndr", "custom"):
        for keep_failing in (False, True):
            expected = _expected_summaries(generated, metric, keep_failing)
            for read in (generated, stored):
                found = histories(read, metric, keep_failing=keep_failing)
                assert {
                    history.key: (history.name, history.tags, history.unit, len(history.runs))
                    for history in found
                } == expected
                assert [history.key for history in found] == list(expected)


@settings(max_examples=60, deadline=None)
@given(builds, st.randoms(use_true_random=False), st.integers(1, 3))
def test_rows_in_any_order_and_files_give_the_builds_written(
    generated: list[Build], rng: random.Random, pieces: int
) -> None:
    """Rows as written skip the sort; shuffled over several files they are sorted back."""
    written = list(tables_by_partition(generated).values())
    assert all(_ordered(*_sort_keys(table)) for table in written)
    if not written:
        return
    whole = pa.concat_tables(written)
    shuffled = whole.take(pa.array(_shuffled_keeping_each_tests_rows(whole, rng), pa.int64()))
    cuts = sorted(rng.sample(range(whole.num_rows + 1), min(pieces - 1, whole.num_rows + 1)))
    bounds = [0, *cuts, whole.num_rows]
    parts = [shuffled.slice(low, high - low) for low, high in itertools.pairwise(bounds)]
    assert builds_from_rows(parts) == builds_from_rows(written)
    keys = list(_keys(shuffled))
    assert _ordered(*_sort_keys(shuffled)) == (keys == sorted(keys))


def _shuffled_keeping_each_tests_rows(table: pa.Table, rng: random.Random) -> list[int]:
    """A random row order in which each test's rows keep their order (its measurements')."""
    keys = list(_keys(table))
    priorities = [rng.random() for _ in keys]
    by_key: dict[tuple[int, int], list[int]] = {}
    for at, key in enumerate(keys):
        by_key.setdefault(key, []).append(at)
    for rows in by_key.values():
        for at, priority in zip(rows, sorted(priorities[at] for at in rows), strict=True):
            priorities[at] = priority
    return sorted(range(len(keys)), key=priorities.__getitem__)


def _keys(table: pa.Table) -> Iterator[tuple[int, int]]:
    """Each row's sort key, said plainly: build, then test, a build's own row last."""
    for build, test in zip(
        table.column("build_index").to_pylist(), table.column("test_index").to_pylist(), strict=True
    ):
        yield build, 2**31 if test is None else test


def test_a_stores_runs_share_their_inputs_doubles_and_copy_none() -> None:
    """Each run's trials are a window on its input's column, not bytes of their own:
    at CSIT's size the copies were 130 bytes a run, 0.45 GB."""
    (measured,) = [test for test in BUILDS[0].tests if test.measurement("mrr")]
    tests = tuple(replace(measured, test_id=f"{measured.test_id}-{at}") for at in range(4))
    builds = [replace(BUILDS[0], build=str(day), tests=tests) for day in range(3)]
    stored = [stored for build in builds for stored in _stored([build])]
    runs = [run for history in histories(stored, "mrr") for run in history.runs]
    assert len(runs) == 12
    for build in stored:
        own = [run.values for run in runs if run.build == build.build]
        buffers = {
            id(found)
            for values in own
            for found in gc.get_referents(values)
            if isinstance(found, np.ndarray)
        }
        assert len(buffers) == 1 and not any(
            isinstance(found, bytes) for values in own for found in gc.get_referents(values)
        )
    assert histories(stored, "mrr") == histories(builds, "mrr")
