"""Histories of a store's builds, kept between builds as columns of their runs.

A site makes every history from its store's rows again on each build: at
CSIT's size 3.6 million test runs, of which one new build brings 20,000.
Most of that time was taking each build's rows apart (its tests' status,
message, hosts, environment, unit and trials, :class:`.MetricRows`) and
filing them run by run.  So the runs of one source's metric are kept, one
row per run in the order of the builds, in an Arrow IPC file in the cache
folder, beside the list of the builds they came from: a build whose first
builds are the kept ones takes only its new builds' rows apart, appends
them, and makes every history's runs from the columns at once.

What a kept build is, is its stored input's identity (the input's files as
they were when decoded, and how they were read) and its place in the input
(:attr:`.StoredTests.identity`), so kept runs are used only for exactly the
rows they were taken from.  Anything else (a build inserted before the
newest kept one, an input changed, a build not read from a store) makes
the histories from every build again, and keeps those.

The file is untrusted input like every cache file: it is used only when its
columns have exactly the types below, its arrays are valid, every number in
it points where it may and its cells keep the promises the columns make; a
damaged one is reported and made anew.
"""

from __future__ import annotations

import hashlib
import json
import operator
import os
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice, repeat
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

from sphinxcontrib_trending.ingest.model import Build, TestResult
from sphinxcontrib_trending.ingest.store.stored_tests import (
    MetricRows,
    StoredTests,
    metric_rows_of,
)
from sphinxcontrib_trending.ingest.trials import Trials

COLUMNS_VERSION = "1"
"""Raise it when what a kept run holds, or how histories are made from it, changes."""

_HEAD_KEY = b"sphinxcontrib-trending.history-columns"

_TEXTS = pa.dictionary(pa.int32(), pa.string())

RUN_SCHEMA = pa.schema(
    [
        pa.field("history", pa.int32(), nullable=False),
        pa.field("build", pa.int32(), nullable=False),
        pa.field("test", pa.int32(), nullable=False),
        pa.field("status", _TEXTS, nullable=False),
        pa.field("message", pa.string(), nullable=False),
        pa.field("hosts", _TEXTS, nullable=False),
        pa.field("environment", _TEXTS, nullable=False),
        pa.field("with_metric", pa.bool_(), nullable=False),
        pa.field("measured", pa.bool_(), nullable=False),
        pa.field("failed", pa.bool_(), nullable=False),
        pa.field("statistics", pa.bool_(), nullable=False),
        pa.field("unit", _TEXTS),
        pa.field("trials", pa.list_(pa.float64())),
        pa.field("average", pa.float64()),
        pa.field("stdev", pa.float64()),
    ]
)
"""A run per row, in build order and, within a build, in its tests' order.

``history`` numbers the run's history (its test id and testbed in the
file's head); ``build`` is the build's place among the kept builds,
``test`` the test's among the build's tests.  ``unit`` and ``trials`` are
set exactly where ``with_metric`` is; ``average`` and ``stdev`` are the
run's (set together); ``statistics`` says the trials carry them too, as a
store's rows do where they keep them."""

Warn = Callable[[str], None]


@dataclass
class KeptRuns:
    """What a kept file holds: the builds it covers and every run of theirs."""

    builds: list[str]
    """Each kept build's identity (:attr:`.StoredTests.identity`), in order."""
    test_ids: list[str]
    """Each history's test id, by history number."""
    testbeds: list[str | None]
    table: pa.Table
    """The runs, :data:`RUN_SCHEMA`."""


class HistoryColumns:
    """The kept runs of one source's metric, in ``folder``."""

    def __init__(self, folder: Path, source: str, metric: str, warn: Warn | None = None) -> None:
        self.metric = metric
        scope = json.dumps([COLUMNS_VERSION, source, metric])
        self.path = folder / f"{hashlib.sha256(scope.encode()).hexdigest()[:32]}.arrow"
        self._scope = scope
        self._warn = warn

    def read(self, builds: Sequence[Build]) -> KeptRuns | None:
        """The kept runs, if there are any for the first of ``builds``; None otherwise
        (and ``warn`` told, naming the file, when the file is damaged)."""
        try:
            with pa.memory_map(str(self.path)) as source:
                reader = ipc.open_file(source)
                head = _head((reader.schema.metadata or {}).get(_HEAD_KEY), self._scope)
                if head is None:
                    return None  # kept by other code: made anew
                kept = head["builds"]
                if len(kept) > len(builds) or kept != _identities(builds[: len(kept)]):
                    return None  # other builds than these: made anew
                table = reader.read_all().replace_schema_metadata(None)
            runs = KeptRuns(kept, head["test_ids"], head["testbeds"], table)
            _check(runs, [len(build.tests) for build in builds[: len(kept)]])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, pa.ArrowException) as error:
            if self._warn is not None:
                self._warn(f"{self.path}: damaged kept histories, made anew: {error}")
            return None
        return runs

    def write(self, runs: KeptRuns) -> None:
        """Keep ``runs`` (write, then rename); a cache that cannot be written costs only speed."""
        head = {
            "scope": self._scope,
            "builds": runs.builds,
            "test_ids": runs.test_ids,
            "testbeds": runs.testbeds,
        }
        schema = RUN_SCHEMA.with_metadata({_HEAD_KEY: json.dumps(head).encode()})
        temporary = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(
                dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp"
            )
            os.close(handle)
            # an IPC file has one dictionary per column: the builds' own are unified
            table = runs.table.unify_dictionaries()
            with pa.OSFile(temporary, "wb") as sink, ipc.new_file(sink, schema) as writer:
                for batch in _regrouped(table):
                    writer.write_batch(batch)
            os.replace(temporary, self.path)
        except OSError:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)


BATCH_RUNS = 1 << 18
"""Runs per batch of a kept file at least (but in its last): each batch costs a few
calls per column when read, and a build adds a batch of its own."""


def _regrouped(table: pa.Table) -> Iterator[pa.RecordBatch]:
    """``table``'s rows in batches of at least :data:`BATCH_RUNS` runs (but the last);
    a batch that has them already is not copied."""
    group: list[pa.RecordBatch] = []
    rows = 0
    for batch in table.to_batches():
        group.append(batch)
        rows += batch.num_rows
        if rows >= BATCH_RUNS:
            yield _joined(group)
            group, rows = [], 0
    if group:
        yield _joined(group)


def _joined(batches: list[pa.RecordBatch]) -> pa.RecordBatch:
    if len(batches) == 1:
        return batches[0]
    return pa.Table.from_batches(batches).combine_chunks().to_batches()[0]


def kept_identities(builds: Sequence[Build]) -> bool:
    """Whether every build is read from a store that can say what its rows are."""
    return all(type(build.tests) is StoredTests and build.tests.identity for build in builds)


def _identities(builds: Sequence[Build]) -> list[str]:
    return [build.tests.identity for build in builds]  # type: ignore[attr-defined]


def _head(raw: bytes | None, scope: str) -> dict[str, Any] | None:
    """The file's head if it is this scope's; ``ValueError`` if it is not one."""
    if raw is None:
        return None
    head = json.loads(raw)
    if not isinstance(head, dict) or head.get("scope") != scope:
        return None
    builds, test_ids, testbeds = head["builds"], head["test_ids"], head["testbeds"]
    if not (
        isinstance(builds, list)
        and all(isinstance(build, str) for build in builds)
        and isinstance(test_ids, list)
        and all(isinstance(test_id, str) for test_id in test_ids)
        and isinstance(testbeds, list)
        and all(testbed is None or isinstance(testbed, str) for testbed in testbeds)
        and len(test_ids) == len(testbeds)
    ):
        raise ValueError("the head is not lists of builds, test ids and testbeds")
    return head


def _check(runs: KeptRuns, tests: list[int]) -> None:
    """Raise ``ValueError`` unless ``runs`` keeps every promise of :data:`RUN_SCHEMA`
    for builds of ``tests`` tests each."""
    table = runs.table
    if not table.schema.remove_metadata().equals(RUN_SCHEMA):
        raise ValueError("the kept columns are not of the kept runs' types")
    table.validate(full=True)  # offsets and dictionary indices within their arrays
    for field in RUN_SCHEMA:
        if not field.nullable and table.column(field.name).null_count:
            raise ValueError(f"column {field.name} has empty cells")
    history = _numbers(table, "history")
    build = _numbers(table, "build")
    test = _numbers(table, "test")
    if len(table) and (
        history.min() < 0
        or history.max() >= len(runs.test_ids)
        or build.min() < 0
        or build.max() >= len(tests)
        or np.any(np.diff(build) < 0)
        or test.min() < 0
        or np.any(test >= np.asarray(tests, dtype=np.int64)[build])
    ):
        raise ValueError("a run's history, build or test is out of range or order")
    with_metric = _flags(table, "with_metric")
    statistics = _flags(table, "statistics")
    average = _valid(table, "average")
    if not (
        np.array_equal(_valid(table, "trials"), with_metric)
        and np.array_equal(_valid(table, "unit"), with_metric)
        and np.array_equal(average, _valid(table, "stdev"))
        and not np.any(average & ~with_metric)
        and not np.any(statistics & ~average)
    ):
        raise ValueError("units, trials and statistics are not set where the metric was measured")
    if pc.list_flatten(table.column("trials")).null_count:
        raise ValueError("column trials has empty trials")


def _numbers(table: pa.Table, name: str) -> npt.NDArray[np.int64]:
    return table.column(name).to_numpy().astype(np.int64)


def _flags(table: pa.Table, name: str) -> npt.NDArray[np.bool_]:
    return table.column(name).to_numpy().astype(bool)


def _valid(table: pa.Table, name: str) -> npt.NDArray[np.bool_]:
    return pc.is_valid(table.column(name)).to_numpy()


class Numbering:
    """History numbers by testbed and test id, new ones numbered on in order of
    appearance (as :class:`~.history._Gathered` numbers them)."""

    def __init__(self, test_ids: list[str], testbeds: list[str | None]) -> None:
        self.test_ids = list(test_ids)
        self.testbeds = list(testbeds)
        self._known: dict[str | None, dict[str, int]] = defaultdict(dict)
        for number, (test_id, testbed) in enumerate(zip(test_ids, testbeds, strict=True)):
            self._known[testbed][test_id] = number

    def numbered(self, testbed: str | None, test_ids: list[str]) -> list[int]:
        known = self._known[testbed]
        numbers = list(map(known.get, test_ids))
        if None in numbers:
            for at, test_id in enumerate(test_ids):
                if numbers[at] is None:
                    number = known.get(test_id)
                    if number is None:
                        number = known[test_id] = len(self.test_ids)
                        self.test_ids.append(test_id)
                        self.testbeds.append(testbed)
                    numbers[at] = number
        return numbers  # type: ignore[return-value]


Statistics = Callable[[Sequence[float]], tuple[float | None, float | None]]


def new_runs(
    builds: Sequence[Build],
    first: int,
    metric: str,
    numbering: Numbering,
    batch: int,
    statistics: Statistics,
) -> list[pa.Table]:
    """The runs of ``builds`` (placed from ``first`` on) as :data:`RUN_SCHEMA` tables,
    their rows taken in passes of about ``batch`` test runs (see :func:`.metric_rows_of`)."""
    tables: list[pa.Table] = []
    group: list[Build] = []
    count = 0
    for at, build in enumerate(builds):
        group.append(build)
        count += len(build.tests)
        if count >= batch or at == len(builds) - 1:
            start = first + at + 1 - len(group)
            tests = [build.tests for build in group]
            for offset, (made, rows) in enumerate(
                zip(group, metric_rows_of(tests, metric), strict=True)  # type: ignore[arg-type]
            ):
                tables.append(_runs_table(start + offset, made, rows, numbering, statistics))
            group, count = [], 0
    return tables


def _runs_table(
    position: int,
    build: Build,
    rows: MetricRows,
    numbering: Numbering,
    trial_statistics: Statistics,
) -> pa.Table:
    """One build's runs; a run's average is computed here where the store keeps none."""
    count = len(rows.test_ids)
    with_metric = rows.with_metric
    trials = [found for found in rows.trials if found is not None]
    averages, stdevs = list(rows.averages), list(rows.stdevs)
    kept = np.array([average is not None for average in averages], dtype=bool)
    for at in np.flatnonzero(with_metric & ~kept).tolist():
        averages[at], stdevs[at] = trial_statistics(rows.trials[at])  # type: ignore[arg-type]
    lengths = np.zeros(count, dtype=np.int32)
    lengths[with_metric] = [len(found) for found in trials]
    offsets = np.zeros(count + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    values = np.frombuffer(b"".join(_packed(found) for found in trials), dtype=np.float64)
    columns = [
        pa.array(numbering.numbered(build.testbed, rows.test_ids), pa.int32()),
        pa.array(np.full(count, position, dtype=np.int32)),
        pa.array(np.arange(count, dtype=np.int32)),
        _texts(rows.statuses),
        pa.array(rows.messages, pa.string()),
        _texts(rows.hosts),
        _texts(rows.environments),
        pa.array(with_metric),
        pa.array(rows.measured),
        pa.array(rows.failed),
        pa.array(kept),
        _texts(rows.units),
        pa.ListArray.from_arrays(pa.array(offsets), pa.array(values), mask=pa.array(~with_metric)),
        pa.array(averages, pa.float64()),
        pa.array(stdevs, pa.float64()),
    ]
    return pa.Table.from_arrays(columns, schema=RUN_SCHEMA)


def _packed(trials: Sequence[float]) -> bytes:
    if type(trials) is Trials:
        return trials.packed
    return np.asarray(trials, dtype=np.float64).tobytes()


def _texts(texts: Sequence[str | None]) -> pa.Array:
    return pa.array(texts, pa.string()).dictionary_encode()


@dataclass
class Settled:
    """What each history is, from its runs: which of them a site shows, and how."""

    runs: list[tuple[Any, ...]]
    """Each history's runs, by history number."""
    shown: list[int]
    """The histories shown, in the order :func:`.histories` gives them."""
    units: dict[int, str | None]
    newest: list[TestResult]
    """Each shown history's newest test (its name, tags and dimensions)."""


def settled(
    builds: Sequence[Build],
    table: pa.Table,
    numbering: Numbering,
    keep_failing: bool,
    run_type: type[tuple[Any, ...]],
    keys: list[str],
) -> Settled:
    """Every history's runs and what :func:`.histories` needs of it, from the runs' columns.

    The runs are made in one pass in the order of the histories (a stable
    sort of the run rows by history keeps each history's in build order);
    which run is a history's newest, which gives its unit and whether it
    ever measured or failed are array operations.
    """
    histories = len(numbering.test_ids)
    history = _numbers(table, "history")
    order = np.argsort(history, kind="stable")
    counts = np.bincount(history, minlength=histories)
    runs = _made_runs(builds, table, order, run_type)
    it = iter(runs)
    by_history = [tuple(islice(it, count)) for count in counts.tolist()]
    ordered = history[order]
    build = _numbers(table, "build")[order]
    test = _numbers(table, "test")[order]
    with_metric = _flags(table, "with_metric")[order]
    ends = np.cumsum(counts) - 1
    present = counts > 0
    # the newest run measuring the metric gives the unit; ties in the key
    # keep the order the unit was found in (build, then test), as _Gathered does
    measuring = np.flatnonzero(with_metric)
    last = _ends(measuring, ordered, last=True)
    unit_build = np.full(histories, -1, dtype=np.int64)
    unit_build[ordered[last]] = build[last]
    in_unit_build = measuring[build[measuring] == unit_build[ordered[measuring]]]
    first = _ends(in_unit_build, ordered, last=False)
    unit_test = np.zeros(histories, dtype=np.int64)
    unit_test[ordered[first]] = test[first]
    every_unit = _decoded(table.column("unit"))
    unit_texts = [every_unit[row] for row in order[last].tolist()]
    units: dict[int, str | None] = dict(zip(ordered[last].tolist(), unit_texts, strict=True))
    rank: dict[int, tuple[int, int, int]] = {
        number: (0, int(unit_build[number]), int(unit_test[number])) for number in units
    }
    if keep_failing:
        measured = np.bincount(history, weights=_flags(table, "measured"), minlength=histories)
        failed = np.bincount(history, weights=_flags(table, "failed"), minlength=histories)
        for number in np.flatnonzero((failed > 0) & (measured == 0) & present).tolist():
            units.setdefault(number, None)
            rank.setdefault(number, (1, number, 0))
    shown = sorted(units, key=lambda number: (keys[number], rank[number]))
    newest = _newest_tests(builds, shown, build[ends], test[ends])
    return Settled(by_history, shown, units, newest)


def _ends(
    rows: npt.NDArray[np.intp], ordered: npt.NDArray[np.int64], *, last: bool
) -> npt.NDArray[np.intp]:
    """Of ``rows`` (ascending, in history order), each history's last or first one."""
    if not len(rows):
        return rows
    changes = ordered[rows][1:] != ordered[rows][:-1]
    return rows[np.r_[changes, True] if last else np.r_[True, changes]]


def _newest_tests(
    builds: Sequence[Build],
    shown: list[int],
    build: npt.NDArray[np.int64],
    test: npt.NDArray[np.int64],
) -> list[TestResult]:
    """Each shown history's newest test; a store's are made a build at a time."""
    wanted: defaultdict[int, list[int]] = defaultdict(list)
    for number in shown:
        wanted[int(build[number])].append(number)
    found: dict[int, TestResult] = {}
    for position, numbers in wanted.items():
        tests = builds[position].tests
        indices = [int(test[number]) for number in numbers]
        if isinstance(tests, StoredTests):
            found.update(zip(numbers, tests.picked(indices), strict=True))
        else:
            found.update(zip(numbers, map(tests.__getitem__, indices), strict=True))
    return [found[number] for number in shown]


def _made_runs(
    builds: Sequence[Build],
    table: pa.Table,
    order: npt.NDArray[np.intp],
    run_type: type[tuple[Any, ...]],
) -> tuple[tuple[Any, ...], ...]:
    """Every run, in ``order``: made in row order in one ``map`` (no Python code per run
    but its trials' object), then put in order (the columns are not copied to sort them)."""
    count = len(order)
    if not count:
        return ()
    position = _numbers(table, "build")
    cells = [
        np.array([getattr(build, name) for build in builds], dtype=object)[position].tolist()
        for name in ("time", "job", "build", "dut_version", "testbed")
    ]
    averages = table.column("average").to_pylist()
    stdevs = table.column("stdev").to_pylist()
    fields = zip(
        *cells,
        _decoded(table.column("status")),
        table.column("message").to_pylist(),
        _values(table, averages, stdevs),
        averages,
        stdevs,
        _decoded(table.column("hosts")),
        repeat((), count),
        repeat((), count),
        _decoded(table.column("environment")),
        strict=True,
    )
    # tuple.__new__ makes each run in C, where run_type(...) is a Python call per run
    made = list(map(tuple.__new__, repeat(run_type, count), fields))
    if count == 1:
        return (made[0],)
    return operator.itemgetter(*order.tolist())(made)  # type: ignore[no-any-return]


def _values(
    table: pa.Table, averages: list[float | None], stdevs: list[float | None]
) -> list[Sequence[float]]:
    """Each run's trials cut from its chunk's buffer of doubles, or () where it did not
    measure the metric; with their statistics where the store keeps them."""
    found: list[Sequence[float]] = []
    at = 0
    for chunk, with_metric, statistics in zip(
        table.column("trials").chunks,
        table.column("with_metric").chunks,
        table.column("statistics").chunks,
        strict=True,
    ):
        packed = chunk.values.to_numpy(zero_copy_only=False).tobytes()
        bounds = (chunk.offsets.to_numpy().astype(np.int64) * 8).tolist()
        stop = at + len(chunk)
        own_averages, own_stdevs = averages[at:stop], stdevs[at:stop]
        if pc.all(with_metric).as_py() and pc.all(statistics).as_py():  # as usual
            found += [
                Trials(packed[low:high], (average, stdev))
                for low, high, average, stdev in zip(
                    bounds[:-1], bounds[1:], own_averages, own_stdevs, strict=True
                )
            ]
        else:
            found += [
                (Trials(packed[low:high], (average, stdev) if kept else None) if measured else ())
                for low, high, measured, kept, average, stdev in zip(
                    bounds[:-1],
                    bounds[1:],
                    with_metric.to_pylist(),
                    statistics.to_pylist(),
                    own_averages,
                    own_stdevs,
                    strict=True,
                )
            ]
        at = stop
    return found


def _decoded(column: pa.ChunkedArray | pa.Array) -> list[str | None]:
    """A dictionary column's texts, each distinct one a single interned string."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    found: list[str | None] = []
    for chunk in chunks:
        texts = [sys.intern(text) for text in chunk.dictionary.to_pylist()]
        indices = chunk.indices.fill_null(len(texts)).to_numpy()
        found.extend(np.array([*texts, None], dtype=object)[indices].tolist())
    return found
