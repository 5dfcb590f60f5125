"""Our model to store rows and back, and the reference's rows into our model.

Writing: one row per (build, test, metric) in our columns, plus the
reference's columns for what it knows (``job``, ``passed``,
``result_ndr_lower_rate_value`` ...).  Reading our rows uses our columns
only, so a build comes back equal to the one parsed: messages, tags,
attributes, failed tests without values, builds without tests.  Reading the
reference's rows (one per test) turns each filled ``result_*`` column into
the measurement of the metric it maps to, as the ``csit-json`` format would
have read the test's document.
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from sphinxcontrib_trending.ingest.latency_histogram import percentiles
from sphinxcontrib_trending.ingest.metrics import METRICS
from sphinxcontrib_trending.ingest.model import Build, Measurement, Problem, TestResult
from sphinxcontrib_trending.ingest.naming import build_testbed
from sphinxcontrib_trending.ingest.plausible import EARLIEST, LATEST, MAX_VALUE
from sphinxcontrib_trending.ingest.read_options import ReadOptions
from sphinxcontrib_trending.ingest.results import strip_tc_prefix, thread_core
from sphinxcontrib_trending.ingest.store.columns import (
    REFERENCE_HISTOGRAMS,
    REFERENCE_METRICS,
    STORE_SCHEMA,
    TRIAL_STATISTICS,
)
from sphinxcontrib_trending.ingest.store.layout import Partition, partition_of
from sphinxcontrib_trending.ingest.store.lazy_columns import TrialsColumn
from sphinxcontrib_trending.ingest.telemetry import asked_for, read_telemetry
from sphinxcontrib_trending.ingest.trials import Trials

REFERENCE_ATTRIBUTES = ("dut_type", "tg_type", "tg_version", "version")
"""Test attributes the reference has a column for (``hosts`` too, as a list)."""


def _test_cells(test: TestResult | None) -> dict[str, Any]:
    if test is None:
        return {}
    attributes = dict(test.attributes)
    hosts = attributes.get("hosts")
    return {
        **{name: attributes.get(name) for name in REFERENCE_ATTRIBUTES},
        "hosts": hosts.split() if hosts is not None else None,
        "start_time": test.start,
        "passed": test.passed,
        "test_id": test.test_id,
        "message": test.message,
        "suite": test.suite,
        "test_name": test.name,
        "tags": list(test.tags),
        "status": test.status,
        "thread_core": test.thread_core,
        "attributes": [{"name": name, "value": value} for name, value in test.attributes],
    }


def _measurement_cells(measurement: Measurement | None) -> dict[str, Any]:
    if measurement is None:
        return {}
    cells: dict[str, Any] = {
        "metric": measurement.metric,
        "unit": measurement.unit,
        "values": list(measurement.values),
    }
    columns = REFERENCE_METRICS.get(measurement.metric)
    if columns is not None:
        cells[columns.unit] = measurement.unit
        if columns.trials:
            cells[columns.value] = list(measurement.values)
            if measurement.values:  # no trials: no average to keep
                cells[columns.average], cells[columns.stdev] = _mean_and_stdev(measurement.values)
        elif len(measurement.values) == 1:
            cells[columns.value] = measurement.values[0]
    return cells


def _mean_and_stdev(values: tuple[float, ...]) -> tuple[float, float]:
    """Average and population standard deviation (``statistics`` is exact, and far slower)."""
    mean = math.fsum(values) / len(values)
    return mean, math.sqrt(math.fsum((value - mean) ** 2 for value in values) / len(values))


def _rows(build: Build, build_index: int) -> Iterator[tuple[Partition, dict[str, Any]]]:
    head = {
        "job": build.job,
        "build": build.build,
        "dut_version": build.dut_version,
        "testbed": build.testbed,
        "build_time": build.time,
        "origin": build.origin,
        "build_index": build_index,
    }
    if not build.tests:
        yield partition_of(build, None), head
    for test_index, test in enumerate(build.tests):
        cells = {**head, **_test_cells(test), "test_index": test_index}
        partition = partition_of(build, test)
        for measurement in test.measurements or (None,):
            yield partition, {**cells, **_measurement_cells(measurement)}


class _Columns:
    """Rows gathered column by column: most reference columns stay empty on most rows."""

    def __init__(self) -> None:
        self.cells: dict[str, dict[int, Any]] = defaultdict(dict)
        self.count = 0

    def add(self, row: dict[str, Any]) -> None:
        for name, value in row.items():
            self.cells[name][self.count] = value
        self.count += 1

    def table(self) -> pa.Table:
        arrays = []
        for column in STORE_SCHEMA:
            cells = self.cells.get(column.name)
            if cells is None:
                arrays.append(pa.nulls(self.count, column.type))
            elif len(cells) == self.count:  # filled on every row, in row order
                arrays.append(pa.array(list(cells.values()), column.type))
            else:
                arrays.append(pa.array([cells.get(at) for at in range(self.count)], column.type))
        return pa.Table.from_arrays(arrays, schema=STORE_SCHEMA)


def tables_by_partition(builds: list[Build]) -> dict[Partition, pa.Table]:
    """The rows of ``builds`` (one input's), one table per partition folder."""
    grouped: dict[Partition, _Columns] = defaultdict(_Columns)
    for build_index, build in enumerate(builds):
        for partition, row in _rows(build, build_index):
            grouped[partition].add(row)
    return {partition: grouped[partition].table() for partition in sorted(grouped)}


EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def row_columns(table: pa.Table) -> dict[str, list[Any]]:
    """The table as Python lists, times as microseconds since the epoch.

    pyarrow turns a zoned timestamp into a datetime some fifty times slower
    than :func:`row_time` does from the number; a store has a time per row.
    Times in another unit come to microseconds first: the reference's ETL
    writes Spark's INT96 timestamps, which read as nanoseconds (any finer
    digits are dropped, as a datetime has none).
    """
    for at, column in enumerate(table.schema):
        if pa.types.is_timestamp(column.type):
            micros = pc.cast(table.column(at), pa.timestamp("us", column.type.tz), safe=False)
            table = table.set_column(at, column.name, micros.cast(pa.int64()))
        elif pa.types.is_dictionary(column.type):
            table = table.set_column(at, column.name, decoded(table.column(at)))
    return table.to_pydict()


def decoded(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A dictionary column (see :meth:`SharedValues.encoded`) as its values: pyarrow
    turns a dictionary array into Python values one scalar object at a time."""
    if pa.types.is_dictionary(column.type):
        return column.cast(column.type.value_type)
    return column


BY_ROW = frozenset({"values", *(name for pair in TRIAL_STATISTICS for name in pair)})
"""Columns :class:`RowTrials` turns into each row's values itself."""


class RowTrials:
    """Each row's values, windows on the column's own doubles (no copy, no float
    per trial), with their statistics where the row keeps them (checked by
    :func:`check_plausible`): call it with a row's index.

    ``rows`` (row indices of ``table``, ascending, each once) picks the rows wanted;
    :meth:`column` gives theirs, in that order.
    """

    def __init__(self, table: pa.Table, rows: npt.NDArray[np.intp] | None = None) -> None:
        values = table.column("values")
        if rows is None:
            rows = np.arange(table.num_rows)
        # per chunk: its doubles (zero-copy) and its rows' offsets into them
        self._doubles: list[npt.NDArray[np.float64]] = []
        self._offsets: list[npt.NDArray[np.integer[Any]]] = []
        for chunk in values.chunks:
            doubles = chunk.values.to_numpy(zero_copy_only=False)
            self._doubles.append(doubles.astype(np.float64, copy=False))
            self._offsets.append(chunk.offsets.to_numpy())  # int32, int64 for a large list
        bounds = np.cumsum([0, *(len(chunk) for chunk in values.chunks)])
        self._chunks = np.searchsorted(bounds, rows, side="right") - 1
        self._rows = rows - bounds[:-1][self._chunks] if len(rows) else self._chunks
        picked = table.select([name for name in BY_ROW if name != "values"])
        if len(rows) < table.num_rows:  # else every row, in order: Arrow would copy them
            picked = picked.take(pa.array(rows))
        self.averages: npt.NDArray[np.float64] = _coalesced(
            picked, [average for average, _ in TRIAL_STATISTICS]
        ).to_numpy(zero_copy_only=False)
        """Each picked row's stored average; NaN where it keeps none."""
        self.stdevs: npt.NDArray[np.float64] = _coalesced(
            picked, [stdev for _, stdev in TRIAL_STATISTICS]
        ).to_numpy(zero_copy_only=False)

    def __call__(self, at: int) -> Trials:
        """The values of the ``at``-th row picked, with their statistics if the row has them."""
        chunk, row = int(self._chunks[at]), int(self._rows[at])
        offsets = self._offsets[chunk]
        average, stdev = float(self.averages[at]), float(self.stdevs[at])
        return Trials.within(
            self._doubles[chunk],
            int(offsets[row]),
            int(offsets[row + 1]),
            None if math.isnan(average) or math.isnan(stdev) else (average, stdev),
        )

    def column(self) -> TrialsColumn:
        """Every picked row's values, in order, each made when read.

        Without their statistics: a history's run keeps them itself (see
        :attr:`averages`), and a tuple of them per run would cost 64 bytes.
        """
        rows = self._rows.astype(np.intp)
        chunks = self._chunks.astype(np.int32)
        kind = np.result_type(np.int32, *(offsets.dtype for offsets in self._offsets))
        lows = np.zeros(len(rows), dtype=kind)
        highs = np.zeros(len(rows), dtype=kind)
        for number, offsets in enumerate(self._offsets):
            mine = chunks == number
            lows[mine] = offsets[rows[mine]]
            highs[mine] = offsets[rows[mine] + 1]
        return TrialsColumn(self._doubles, chunks, lows, highs)


def _coalesced(table: pa.Table, names: list[str]) -> pa.ChunkedArray:
    """Per row, the first of these columns that has a value."""
    columns = [table.column(name) for name in names]
    return columns[0] if len(columns) == 1 else pc.coalesce(*columns)


def row_time(micros: int | None) -> datetime | None:
    """A stored time (UTC; naive in the reference's files) as the model's datetime."""
    return None if micros is None else EPOCH + timedelta(microseconds=micros)


def check_rows(table: pa.Table) -> None:
    """Raise ``ValueError`` unless every column has our type and required cells are set.

    Parquet keeps types but not our promises (a planted file may hold nulls
    where the model needs text), so both are checked before any row is used.
    """
    for column in table.schema:
        expected = STORE_SCHEMA.field(column.name)
        if not column.type.equals(expected.type):
            raise ValueError(f"column {column.name} is {column.type}, not {expected.type}")
        if not expected.nullable and table.column(column.name).null_count:
            raise ValueError(f"column {column.name} has empty cells")
    if "values" in table.column_names and "metric" in table.column_names:
        values = table.column("values")
        if pc.list_flatten(values).null_count:
            raise ValueError("column values has empty trials")
        unmeasured = pc.and_(pc.is_valid(table.column("metric")), pc.is_null(values))
        if pc.any(unmeasured).as_py():
            raise ValueError("a row with a metric has no values")


class SharedValues:
    """One object for each value a store repeats from build to build.

    A test's id, name, suite and tags come back from every build's file as
    new objects; at CSIT's size (millions of test runs) those copies are
    gigabytes.  Texts go through :func:`sys.intern`, tuples of texts
    through a table this object keeps: use one per read, so a long-running
    process does not keep every tuple it ever saw.
    """

    def __init__(self) -> None:
        self._tuples: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self._dictionaries: defaultdict[str, list[_Encoding]] = defaultdict(list)
        self._tags = pa.array([], pa.list_(pa.string()))
        self._null_columns: dict[pa.DataType, pa.Array] = {}
        self._names: dict[tuple[int, ...], tuple[pa.Array, list[str | None]]] = {}

    @staticmethod
    def text(value: str | None) -> str | None:
        return None if value is None else sys.intern(value)

    def texts(self, values: list[str]) -> tuple[str, ...]:
        found = tuple(map(sys.intern, values))
        return self._tuples.setdefault(found, found)

    def names(self, dictionary: pa.Array) -> list[str | None]:
        """A dictionary's texts, interned, as one list per dictionary this read shares
        (see :meth:`encoded`): what :class:`.CodedTexts` codes index.

        Known by where its buffers lie, which pyarrow keeps however often
        a column hands the dictionary out; the entry holds the dictionary,
        so no other can come to lie there while the read lasts.
        """
        key = (
            dictionary.offset,
            len(dictionary),
            *(buffer.address for buffer in filter(None, dictionary.buffers())),
        )
        found = self._names.get(key)
        if found is None:
            texts = [None if text is None else sys.intern(text) for text in dictionary.to_pylist()]
            found = self._names[key] = (dictionary, texts)
        return found[1]

    def pairs(self, values: list[dict[str, str]]) -> tuple[tuple[str, str], ...]:
        found = tuple((sys.intern(pair["name"]), pair["value"]) for pair in values)
        return self._tuples.setdefault(found, found)

    def encoded(self, table: pa.Table) -> pa.Table:
        """``table`` with its :data:`REPEATED_TEXTS` columns as indices into dictionaries
        shared by every input read with this object.

        Kept for the whole build, those columns were a third of a loaded
        store's columns (test ids, names and suites of every build again,
        about 80 bytes a run); as indices, 4 bytes a run each.  They read
        back as the same texts.  A ``tags`` column equal to the previous
        input's is that one, and a column with no value at all (the
        statistics of a metric the store does not hold) a slice of one
        column of nulls.
        """
        for name in REPEATED_TEXTS:
            at = table.schema.get_field_index(name)
            if at >= 0 and pa.types.is_string(table.schema.field(at).type):
                table = table.set_column(at, name, self._encoded(name, table.column(at)))
        for at, field in enumerate(table.schema):
            column = table.column(at)
            if len(column) and column.null_count == len(column) and field.name != "tags":
                table = table.set_column(at, field, self._nulls(field.type, len(column)))
        at = table.schema.get_field_index("tags")
        if at >= 0:
            tags = table.column(at).combine_chunks()
            if not tags.equals(self._tags):  # else a build of the same tests, in order
                self._tags = tags
            table = table.set_column(at, "tags", self._tags)
        return table

    def _nulls(self, kind: pa.DataType, count: int) -> pa.Array:
        """``count`` nulls of type ``kind``, a slice of one array every input shares."""
        nulls = self._null_columns.get(kind)
        if nulls is None or len(nulls) < count:
            nulls = self._null_columns[kind] = pa.nulls(max(count, 2 * len(nulls or ())), kind)
        return nulls.slice(0, count)

    def _encoded(self, name: str, column: pa.ChunkedArray) -> pa.DictionaryArray:
        """``column`` as indices into a dictionary of ``name``'s already made, if one holds
        every text of it (the newest first), else into a new one of its own texts: never
        one that grows, which every input made before would keep a copy of.

        An input whose column is the last one a dictionary encoded (a build
        of the same tests, in the same order) shares that one's indices too.
        """
        texts = column.combine_chunks()
        known = self._dictionaries[name]
        for at, (dictionary, last, indices) in enumerate(known):
            if not texts.equals(last):
                indices = pc.index_in(texts, value_set=dictionary)
                if indices.null_count != texts.null_count:
                    continue
            del known[at]
            break
        else:
            dictionary = pc.unique(texts).drop_null()
            indices = pc.index_in(texts, value_set=dictionary)
        known.insert(0, _Encoding(dictionary, texts, indices))
        del known[DICTIONARIES_TRIED:]
        return pa.DictionaryArray.from_arrays(indices, dictionary)


class _Encoding(NamedTuple):
    """A shared dictionary, with the last column it encoded and that column's indices."""

    dictionary: pa.Array
    texts: pa.Array
    indices: pa.Array


REPEATED_TEXTS = ("test_id", "test_name", "suite", "status", "thread_core", "metric", "unit")
"""Text columns whose values repeat from build to build (see :meth:`SharedValues.encoded`)."""

DICTIONARIES_TRIED = 16
"""Dictionaries of a column an input's texts are looked up in: a store's testbeds or
jobs may each have tests of their own, and their inputs come interleaved by time."""


def check_plausible(table: pa.Table) -> None:
    """Raise ``ValueError`` for a value or time the parser would have screened out.

    Everything in a store was screened when it was parsed, so such a cell
    was planted; checking the columns at once spares screening each test.
    """
    values = pc.list_flatten(table.column("values"))
    if len(values) and not (
        pc.all(pc.is_finite(values)).as_py() and pc.max(pc.abs(values)).as_py() <= MAX_VALUE
    ):
        raise ValueError(f"a value is infinite, not a number or above {MAX_VALUE:g}")
    for name in ("build_time", "start_time"):
        times = table.column(name).drop_null()
        if len(times) and not (
            pc.min(times).as_py() >= EARLIEST and pc.max(times).as_py() <= LATEST
        ):
            raise ValueError(f"a {name} is outside {EARLIEST.year}..{LATEST.year}")
    _check_statistics(table)


STATISTICS_TOLERANCE = 1e-9
"""How far (relative to a row's largest value) a stored average or spread
may lie from what its values give, summed another way."""


def _check_statistics(table: pa.Table) -> None:
    """Raise ``ValueError`` unless each stored average and spread is that of its row's values.

    The reader hands them to the analysis instead of the values' own
    (:class:`RowTrials`), so a planted one would change what pages show.
    """
    averages = _coalesced(table, [average for average, _ in TRIAL_STATISTICS])
    kept = pc.is_valid(averages)
    if not pc.any(kept).as_py():
        return
    stdevs = pc.filter(_coalesced(table, [stdev for _, stdev in TRIAL_STATISTICS]), kept)
    lists = pc.filter(table.column("values"), kept)
    lengths = pc.fill_null(pc.list_value_length(lists), 0).to_numpy()
    if stdevs.null_count or not lengths.all():
        raise ValueError("an average is stored without its values or spread")
    flat = pc.list_flatten(lists).to_numpy(zero_copy_only=False)
    owner = np.repeat(np.arange(len(lengths)), lengths)
    means = np.bincount(owner, weights=flat) / lengths
    spreads = np.sqrt(np.bincount(owner, weights=(flat - means[owner]) ** 2) / lengths)
    scale = np.maximum.reduceat(np.abs(flat), np.cumsum(lengths) - lengths) + 1e-300
    averages_off = np.abs(pc.filter(averages, kept).to_numpy(zero_copy_only=False) - means)
    spreads_off = np.abs(stdevs.to_numpy(zero_copy_only=False) - spreads)
    if (averages_off > STATISTICS_TOLERANCE * scale).any() or (
        spreads_off > STATISTICS_TOLERANCE * scale
    ).any():
        raise ValueError("a stored average or spread is not that of its values")


def without_passed_messages(table: pa.Table, passed: pa.ChunkedArray) -> pa.Table:
    """``table`` with the message of every passed test (``passed`` true) emptied.

    Sites and gates show the messages of failures only, and CSIT writes a
    passed test's trial values into its message: a quarter of the memory
    of a store read into the model.  The store itself keeps them.
    """
    at = table.schema.get_field_index("message")
    if at < 0:
        return table
    column = table.column(at)
    emptied = pc.if_else(pc.fill_null(passed, False), pa.scalar("", column.type), column)
    return table.set_column(at, "message", emptied)


def builds_from_reference(
    table: pa.Table,
    where: str,
    partition: dict[str, str],
    options: ReadOptions,
    metrics: tuple[str, ...] | None = None,
    *,
    passed_messages: bool = True,
    problems: list[Problem] | None = None,
) -> list[Build]:
    """The reference's rows (one test each) as one-test builds, for merging.

    Its datasets have no suite name or build time, and only the iterative
    (release) ones have tags: the suite and name come from ``test_id`` as
    for its JSON documents, the build's time is its test's start.  A row
    without job, test or start time is no run to trend and is left out.
    With ``metrics`` asked for, a passed test that measured none of them is
    left out too (the reader did not even read its other results); failed
    tests are always kept.  ``passed_messages`` as for
    :func:`.stored_tests.builds_from_rows`.  What a row's telemetry or
    latency histograms had wrong goes to ``problems``, naming the test.
    """
    if not passed_messages and "passed" in table.column_names:
        table = without_passed_messages(table, table.column("passed"))
    builds = []
    columns = row_columns(table)
    rows = zip(*columns.values(), strict=True)
    for row in (dict(zip(columns, cells, strict=True)) for cells in rows):
        start = row_time(row.get("start_time"))
        if start is None or row.get("job") is None or row.get("test_id") is None:
            continue
        errors: list[str] = []
        build = _reference_build(row, start, where, partition, options, metrics, errors)
        test = build.tests[0]
        if problems is not None:
            problems.extend(
                Problem(where, f"test {test.test_id}: {error}", "data") for error in errors
            )
        if metrics is None or not test.passed or test.measurements:
            builds.append(build)
    return builds


def _reference_build(
    row: dict[str, Any],
    start: datetime,
    where: str,
    partition: dict[str, str],
    options: ReadOptions,
    metrics: tuple[str, ...] | None,
    errors: list[str],
) -> Build:
    job, build = str(row["job"]), str(row["build"])
    hosts = [host for host in row.get("hosts") or () if host]
    attributes = {name: row.get(name) for name in REFERENCE_ATTRIBUTES}
    attributes["hosts"] = " ".join(hosts)
    attributes["test_type"] = partition.get("test_type", row.get("test_type"))
    suite, _, name = row["test_id"].rpartition(".")
    passed = bool(row.get("passed"))
    tags = tuple(tag for tag in row.get("tags") or () if tag)
    measurements: list[Measurement] = []
    if passed:
        measurements.extend(_reference_measurements(row))
        measurements.extend(_histogram_percentiles(row, attributes, errors))
        measurements.extend(_telemetry(row, options, metrics, errors))
    test = TestResult(
        test_id=row["test_id"],
        name=strip_tc_prefix(name),
        suite=suite,
        tags=tags,
        status="PASS" if passed else "FAIL",
        start=start,
        message=row.get("message") or "",
        measurements=tuple(measurements),
        thread_core=thread_core(tags) or thread_core(tuple(name.upper().split("-"))),
        attributes=tuple(sorted((k, str(v)) for k, v in attributes.items() if v is not None)),
    )
    testbed = build_testbed(options, job, hosts)
    return Build(job, build, start, row.get("dut_version"), testbed, where, (test,))


def _histogram_percentiles(
    row: dict[str, Any], attributes: dict[str, Any], errors: list[str]
) -> Iterator[Measurement]:
    """Each latency's percentiles from its ``hdrh`` column, the string kept as the
    ``{base}_hdrh`` attribute, as the ``csit-json`` format keeps a document's."""
    for base, columns in REFERENCE_HISTOGRAMS.items():
        encoded = row.get(columns.value)
        if not encoded:
            continue
        attributes[f"{base}_hdrh"] = encoded
        try:
            yield from percentiles(encoded, base, row.get(columns.unit) or "us")
        except ValueError as error:
            errors.append(str(error))


def _telemetry(
    row: dict[str, Any], options: ReadOptions, metrics: tuple[str, ...] | None, errors: list[str]
) -> Iterator[Measurement]:
    """The row's telemetry series (:mod:`~.telemetry`), only the asked ones with ``metrics``."""
    entries = [entry for entry in row.get("telemetry") or () if entry]
    if not entries:
        return
    limits = options.limits
    found = read_telemetry(entries, limits.max_telemetry_bytes, limits.max_telemetry_series)
    errors.extend(found.errors)
    for measurement in found.measurements:
        if metrics is None or asked_for(measurement.metric, metrics):
            yield measurement


def _reference_measurements(row: dict[str, Any]) -> Iterator[Measurement]:
    for metric, columns in REFERENCE_METRICS.items():
        found = row.get(columns.value)
        if found is None or found == []:
            continue
        values = tuple(float(value) for value in found) if columns.trials else (float(found),)
        yield Measurement(metric, row.get(columns.unit) or METRICS[metric].unit, values)
