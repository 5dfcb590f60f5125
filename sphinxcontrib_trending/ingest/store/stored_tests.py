"""Builds read from our store whose tests are made only when something asks for them.

A site over CSIT's data reads 3.6 million test runs, and most pages need
them as per-test histories of one metric, never as test objects: making a
:class:`~.model.TestResult` and its measurements per run was two thirds of
a cold build's read.  So a store read keeps each input's rows as Arrow
columns (:class:`StoredInput`), and a build's ``tests`` is a
:class:`StoredTests`: a sequence that makes its tests the first time it is
read as one.  Histories take what they need straight from the columns
(:meth:`StoredTests.metric_rows`); a failed-tests table over the last
builds makes only those builds' tests.

Everything a test could fail on is checked when the input is read
(:func:`.check_rows`), so making tests later cannot fail: an input still
comes back whole or not at all.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import NamedTuple, cast

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from sphinxcontrib_trending.engine.read_ahead import read_ahead
from sphinxcontrib_trending.ingest.environment import ENVIRONMENT_ATTRIBUTES, PATTERN_PREFIX
from sphinxcontrib_trending.ingest.made_when_read import MadeWhenRead
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestHead, TestResult
from sphinxcontrib_trending.ingest.store.columns import MODEL_COLUMNS
from sphinxcontrib_trending.ingest.store.lazy_columns import CodedTexts, TextColumn, TrialsColumn
from sphinxcontrib_trending.ingest.store.rows import (
    BY_ROW,
    RowTrials,
    SharedValues,
    check_rows,
    decoded,
    row_columns,
    row_time,
    without_passed_messages,
)

BUILD_COLUMNS = ("job", "build", "build_time", "dut_version", "testbed", "origin")
"""Columns with one value per build: read once per build, not kept per row."""

TEST_COLUMNS = tuple(
    name for name in MODEL_COLUMNS if name not in (*BUILD_COLUMNS, "build_index", "test_index")
)
"""Columns kept per row once an input's rows are in order (the indices only order them)."""

HEAD_COLUMNS = ("test_id", "test_name", "suite", "tags", "thread_core", "attributes")
"""The columns of a test's first row a :class:`.TestHead` is made of, in its fields' order."""


class MetricRows(NamedTuple):
    """One build's tests as a history of ``metric`` needs them, a list entry per test."""

    test_ids: CodedTexts
    statuses: CodedTexts
    messages: TextColumn
    """Made when read: nearly every run's is its own, and few are shown."""
    hosts: CodedTexts
    """The ``hosts`` attribute, "" where a test has none."""
    environments: CodedTexts
    """The environment text of each test (see :func:`.environment_text`)."""
    measured: npt.NDArray[np.bool_]
    """Whether the test measured any metric at all."""
    failed: npt.NDArray[np.bool_]
    """Whether the test's status is other than ``PASS``."""
    with_metric: npt.NDArray[np.bool_]
    """Whether the test measured ``metric`` (else its ``units`` entry is None)."""
    units: CodedTexts
    """The metric's unit; None where the test did not measure it."""
    trials: TrialsColumn
    """Each test's values of the metric (empty where it did not measure it), made when read."""
    averages: npt.NDArray[np.float64]
    """The trials' average where the store keeps it (else NaN, and so the stdev)."""
    stdevs: npt.NDArray[np.float64]

    def split(self, counts: Sequence[int]) -> list[MetricRows]:
        """These rows cut into consecutive parts of ``counts`` tests each."""
        bounds = list(itertools.accumulate(counts, initial=0))
        return [
            MetricRows(*(column[low:high] for column in self))
            for low, high in itertools.pairwise(bounds)
        ]


class StoredInput:
    """One input's rows, in order of build and test, kept as Arrow columns.

    Rows of a build's tests may lie in several partition files; a stable
    sort by build and test index puts each test's rows together in the
    order they were written, which is its measurements' order.  The rows
    come sorted and in one chunk per column (:func:`input_rows`, done on a
    store read's reading threads, where Arrow works without the GIL), so
    what the model's thread does per input is find where builds and tests
    start, and later slice.
    """

    def __init__(
        self, table: pa.Table, shared: SharedValues, provenance: tuple[str, ...] = ()
    ) -> None:
        """``table`` as :func:`input_rows` gives it; rows out of order are sorted first.

        ``provenance`` names the data files the rows came from (see
        :attr:`StoredTests.provenance`); empty when that is not known.
        """
        self.provenance = provenance
        builds, tests = _sort_keys(table)
        if not _ordered(builds, tests):
            table = input_rows([table])
            builds, tests = _sort_keys(table)
        self.shared = shared
        new_build = np.ones(len(builds), dtype=bool)
        new_build[1:] = builds[1:] != builds[:-1]
        new_test = new_build | (tests != np.roll(tests, 1))
        new_test &= tests != NO_TEST
        heads = np.flatnonzero(new_build)
        self.starts = np.append(np.flatnonzero(new_test), len(builds))
        """First row of each test, then the row count (test g: starts[g]..starts[g+1])."""
        self._first_test = np.searchsorted(self.starts[:-1], heads)
        self._head_cells = row_columns(table.select(list(BUILD_COLUMNS)).take(pa.array(heads)))
        self.table = shared.encoded(table.select(list(TEST_COLUMNS)))

    def loaded(self) -> StoredInput:
        """Itself: its rows are read (see :class:`DeferredInput`)."""
        return self

    def builds(self) -> list[Build]:
        """The input's builds, in build index order, each with its tests unmade."""
        cells, shared = self._head_cells, self.shared
        stops = [*self._first_test[1:].tolist(), len(self.starts) - 1]
        return [
            Build(
                job=sys.intern(cells["job"][at]),
                build=cells["build"][at],
                time=row_time(cells["build_time"][at]),
                dut_version=shared.text(cells["dut_version"][at]),
                testbed=shared.text(cells["testbed"][at]),
                origin=cells["origin"][at],
                tests=StoredTests(self, first, stop),
            )
            for at, (first, stop) in enumerate(zip(self._first_test.tolist(), stops, strict=True))
        ]

    def _rows(self, first: int, stop: int) -> tuple[pa.Table, npt.NDArray[np.int64]]:
        """The rows of tests ``first..stop`` and where each test starts in them."""
        low, high = int(self.starts[first]), int(self.starts[stop])
        return self.table.slice(low, high - low), self.starts[first : stop + 1] - low

    def tests(self, first: int, stop: int) -> tuple[TestResult, ...]:
        """Tests ``first..stop`` (indices into :attr:`starts`) made as the model's objects."""
        table, starts = self._rows(first, stop)
        cells = row_columns(table.select([name for name in TEST_COLUMNS if name not in BY_ROW]))
        values = RowTrials(table)
        metrics, units, shared = cells["metric"], cells["unit"], self.shared
        made = []
        for low, high in zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True):
            measured = tuple(
                Measurement(sys.intern(metrics[at]), sys.intern(units[at]), values(at))
                for at in range(low, high)
                if metrics[at] is not None
            )
            made.append(
                TestResult(
                    test_id=sys.intern(cells["test_id"][low]),
                    name=sys.intern(cells["test_name"][low]),
                    suite=sys.intern(cells["suite"][low]),
                    tags=shared.texts(cells["tags"][low]),
                    status=sys.intern(cells["status"][low]),
                    start=row_time(cells["start_time"][low]),
                    message=cells["message"][low],
                    measurements=measured,
                    thread_core=shared.text(cells["thread_core"][low]),
                    attributes=shared.pairs(cells["attributes"][low]),
                )
            )
        return tuple(made)

    def heads(self, tests: list[int]) -> list[TestHead]:
        """The tests at ``tests`` (indices into :attr:`starts`) as :class:`.TestHead`:
        their first rows' names, tags and attributes, taken alone."""
        rows = self.table.select(list(HEAD_COLUMNS)).take(pa.array(self.starts[tests]))
        cells, shared = row_columns(rows), self.shared
        return [
            TestHead(
                test_id=sys.intern(test_id),
                name=sys.intern(name),
                suite=sys.intern(suite),
                tags=shared.texts(tags),
                thread_core=shared.text(thread),
                attributes=shared.pairs(attributes),
            )
            for test_id, name, suite, tags, thread, attributes in zip(
                *(cells[column] for column in HEAD_COLUMNS), strict=True
            )
        ]

    def metrics(self, first: int, stop: int) -> set[str]:
        """Every metric tests ``first..stop`` measured, from the column alone."""
        table, _ = self._rows(first, stop)
        return set(pc.unique(decoded(table.column("metric"))).drop_null().to_pylist())

    def test_ids(self, first: int, stop: int) -> list[str]:
        """The ids of tests ``first..stop``, from the column alone."""
        table, starts = self._rows(first, stop)
        return decoded(table.column("test_id").take(pa.array(starts[:-1]))).to_pylist()

    def metric_rows(self, metric: str, first: int, stop: int) -> MetricRows:
        """What histories of ``metric`` need of tests ``first..stop``, from the columns."""
        return _metric_rows(*self._rows(first, stop), metric, self.shared)


def _metric_rows(
    table: pa.Table, starts: npt.NDArray[np.int64], metric: str, shared: SharedValues
) -> MetricRows:
    """:meth:`StoredInput.metric_rows` of ``table``, whose test ``g`` is rows ``starts[g]..
    starts[g+1]``: any tests, of one build or of many (see :func:`metric_rows_of`)."""
    heads = pa.array(starts[:-1])
    metrics = table.column("metric")
    count = len(heads)
    valid = pc.is_valid(metrics).to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(_equal_to(metrics, metric))
    if count == table.num_rows:  # a row per test, as most have: a row is its test
        measured = valid
        tests_measured = picked = rows
    else:
        owner = np.repeat(np.arange(count), np.diff(starts))
        measured = np.zeros(count, dtype=bool)
        measured[owner[valid]] = True
        # a test's first row of the metric, as TestResult.measurement finds it
        tests_measured, first_rows = np.unique(owner[rows], return_index=True)
        picked = rows[first_rows]
    with_metric = np.zeros(count, dtype=bool)
    with_metric[tests_measured] = True
    values = RowTrials(table, picked)
    units = CodedTexts.of(table.column("unit").take(pa.array(picked)), shared.names)
    averages, stdevs = values.averages, values.stdevs
    trials = values.column()
    if len(tests_measured) < count:  # a test that did not measure it: no unit nor values
        trials = TrialsColumn.spread(trials, tests_measured, count)
        units = units.spread(tests_measured, count)
        averages, stdevs = np.full(count, np.nan), np.full(count, np.nan)
        averages[tests_measured], stdevs[tests_measured] = values.averages, values.stdevs
    statuses = CodedTexts.of(table.column("status").take(heads), shared.names)
    failed = np.array([name != "PASS" for name in statuses.names], dtype=bool)[statuses.codes]
    attributes = table.column("attributes").take(heads)
    return MetricRows(
        test_ids=CodedTexts.of(table.column("test_id").take(heads), shared.names),
        statuses=statuses,
        messages=TextColumn(table.column("message"), starts[:-1]),
        hosts=_hosts(attributes),
        environments=_environments(attributes),
        measured=measured,
        failed=failed,
        with_metric=with_metric,
        units=units,
        trials=trials,
        averages=averages,
        stdevs=stdevs,
    )


def _equal_to(column: pa.ChunkedArray, text: str) -> npt.NDArray[np.bool_]:
    """Whether each row of ``column`` is ``text`` (a null is not).

    A dictionary column is compared by its dictionary, then each row's code
    looked up: Arrow compares such a column by decoding every row, a
    quarter of a store pass's time.
    """
    found = []
    for chunk in column.chunks:
        if not pa.types.is_dictionary(chunk.type):
            found.append(pc.fill_null(pc.equal(chunk, text), False).to_numpy(zero_copy_only=False))
            continue
        dictionary = chunk.dictionary
        hits = pc.fill_null(pc.equal(dictionary, text), False).to_numpy(zero_copy_only=False)
        codes = pc.fill_null(chunk.indices, len(dictionary)).to_numpy()
        found.append(np.append(hits, False)[codes])  # a null row: the code past them
    return np.concatenate(found) if found else np.zeros(0, dtype=bool)


NO_TEST = np.iinfo(np.int32).max
"""The test index of a build's own row (a build without tests): it sorts last in its build."""


def _sort_keys(table: pa.Table) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """Each row's build and test index, the order an input's rows are kept in."""
    return (
        table.column("build_index").to_numpy(),
        table.column("test_index").fill_null(NO_TEST).to_numpy(),
    )


def _ordered(builds: npt.NDArray[np.int32], tests: npt.NDArray[np.int32]) -> bool:
    """Whether rows with these keys already lie in order (a build's own row last).

    An input's rows are written in that order, so an input kept in one file
    needs no sort, and the check costs less than one.
    """
    same_build = builds[1:] == builds[:-1]
    return bool(
        np.all(builds[1:] >= builds[:-1])
        and np.all(tests[1:][same_build] >= tests[:-1][same_build])
    )


def _hosts(attributes: pa.ChunkedArray) -> CodedTexts:
    """Each test's ``hosts`` attribute ("" if none; the last one, as ``dict`` keeps it).

    Coded, and interned: every build of a testbed names the same hosts, so a
    code per run costs what a reference would, and no list is made per run.
    """
    count = len(attributes)
    attributes = attributes.combine_chunks()
    pairs = pc.list_flatten(attributes)
    named = pc.equal(pairs.field("name"), "hosts")
    owners = pc.filter(pc.list_parent_indices(attributes), named).to_numpy()
    codes = np.zeros(count, dtype=np.int32)
    if not len(owners):
        return CodedTexts([""], codes)
    values = pc.dictionary_encode(pc.filter(pairs.field("value"), named))
    names = ["", *(sys.intern(text) if text else "" for text in values.dictionary.to_pylist())]
    last = np.append(owners[1:] != owners[:-1], True)  # owners ascend: a test's last pair
    coded = pc.fill_null(values.indices, -1).to_numpy() + 1  # a null value reads as ""
    codes[owners[last]] = coded[last]
    return CodedTexts(names, codes)


_ENVIRONMENT_NAMES = pa.array(sorted(ENVIRONMENT_ATTRIBUTES))


def _environments(attributes: pa.ChunkedArray) -> CodedTexts:
    """Each test's environment text, as :func:`.environment_text` makes it from its
    attributes (kept sorted by name), joined by Arrow: one text per test run."""
    count = len(attributes)
    attributes = attributes.combine_chunks()
    pairs = pc.list_flatten(attributes)
    names = pairs.field("name")
    wanted = pc.or_(
        pc.is_in(names, value_set=_ENVIRONMENT_NAMES), pc.starts_with(names, PATTERN_PREFIX)
    )
    if not pc.any(wanted).as_py():
        return CodedTexts([""], np.zeros(count, dtype=np.int32))
    owners = pc.filter(pc.list_parent_indices(attributes), wanted).to_numpy()
    lines = pc.binary_join_element_wise(
        pc.filter(names, wanted), pc.filter(pairs.field("value"), wanted), "="
    )
    offsets = np.zeros(count + 1, dtype=np.int32)
    np.cumsum(np.bincount(owners, minlength=count), out=offsets[1:])
    joined = pc.binary_join(pa.ListArray.from_arrays(pa.array(offsets), lines), "\n")
    # a build's tests share a few environments: each text made once, a code per run
    encoded = pc.dictionary_encode(joined)
    texts = [sys.intern(text) if text else "" for text in encoded.dictionary.to_pylist()]
    return CodedTexts(texts, encoded.indices.to_numpy().astype(np.int32, copy=False))


class BuildHead(NamedTuple):
    """What makes one of an input's builds without reading its rows: its own cells
    and which of the input's tests are its (``first`` to ``stop``)."""

    job: str
    build: str
    time: str
    """ISO 8601, as :meth:`datetime.isoformat` writes it."""
    dut_version: str | None
    testbed: str | None
    origin: str
    first: int
    stop: int

    @classmethod
    def checked(cls, cells: Sequence[object]) -> BuildHead:
        """The head noted as ``cells`` (JSON); TypeError or ValueError if they are none."""
        head = cls(*cells)  # type: ignore[arg-type]  # TypeError: too few or too many
        texts = (head.job, head.build, head.time, head.origin)
        optional = (head.dut_version or "", head.testbed or "")
        if not all(isinstance(text, str) for text in (*texts, *optional)):
            raise TypeError(f"not a build's head: {cells!r}")
        if not (type(head.first) is type(head.stop) is int and 0 <= head.first <= head.stop):
            raise ValueError(f"not a build's tests: {cells!r}")
        datetime.fromisoformat(head.time)  # ValueError if not a time
        return head

    @classmethod
    def of(cls, build: Build) -> BuildHead:
        first, stop = cast(StoredTests, build.tests).span
        return cls(
            build.job,
            build.build,
            build.time.isoformat(),
            build.dut_version,
            build.testbed,
            build.origin,
            first,
            stop,
        )


class DeferredInput:
    """An input whose rows are read the first time one of its builds' tests is asked for.

    A site over a store rereads every input on every build with a new
    one, though histories kept from the build before
    (:mod:`~sphinxcontrib_trending.analysis.kept_histories`) need only
    the new ones' rows: an input whose builds are known from the last read
    (:class:`BuildHead`) is given as these builds, its rows read by
    ``read`` (which raises what it cannot read) when first needed.
    """

    def __init__(
        self,
        read: Callable[[], pa.Table],
        shared: SharedValues,
        provenance: tuple[str, ...],
        forget: Callable[[], None],
    ) -> None:
        """``forget`` drops what the builds were made of when ``read`` fails, so the
        next build reads the input again instead of failing the same way."""
        self.provenance = provenance
        self._read: Callable[[], pa.Table] | None = read
        self._forget = forget
        self._shared = shared
        self._loaded: StoredInput | None = None

    def loaded(self) -> StoredInput:
        if self._loaded is None:
            self._take(self._rows())
        assert self._loaded is not None
        return self._loaded

    def _rows(self) -> pa.Table:
        assert self._read is not None
        try:
            return self._read()
        except ValueError:
            self._forget()
            raise

    def _take(self, rows: pa.Table) -> None:
        self._loaded = StoredInput(rows, self._shared, self.provenance)
        self._read = None  # and what it held

    @staticmethod
    def load_together(inputs: Iterable[StoredInput | DeferredInput]) -> None:
        """Read the rows of those of ``inputs`` not read yet, the next ones on reading
        threads while this one makes the last one's columns: as a read of the whole
        store does, for what needs every build's rows (a history not kept, ``check``)."""
        waiting = list(
            {
                id(source): source
                for source in inputs
                if type(source) is DeferredInput and source._loaded is None
            }.values()
        )
        for source, rows in zip(waiting, read_ahead(DeferredInput._rows, waiting), strict=True):
            source._take(rows)

    def builds(self, heads: Sequence[BuildHead]) -> list[Build]:
        """The input's builds as ``heads`` name them, each with its tests unmade and unread."""
        return [
            Build(
                job=sys.intern(head.job),
                build=head.build,
                time=datetime.fromisoformat(head.time),
                dut_version=SharedValues.text(head.dut_version),
                testbed=SharedValues.text(head.testbed),
                origin=head.origin,
                tests=StoredTests(self, head.first, head.stop),
            )
            for head in heads
        ]


class StoredTests(MadeWhenRead[TestResult]):
    """A build's tests from a :class:`StoredInput`, made on first use and kept.

    It equals, and hashes like, the tuple of its tests, and pickles as that
    tuple, so a build read from a store still equals the build parsed.
    """

    __slots__ = ("_first", "_input", "_stop")

    def __init__(self, source: StoredInput | DeferredInput, first: int, stop: int) -> None:
        super().__init__()
        self._input = source
        self._first = first
        self._stop = stop

    def _make_all(self) -> tuple[TestResult, ...]:
        return self._input.loaded().tests(self._first, self._stop)

    def _make_one(self, index: int) -> TestResult:
        at = range(self._first, self._stop)[index]  # IndexError as a tuple raises it
        return self._input.loaded().tests(at, at + 1)[0]

    def metric_rows(self, metric: str) -> MetricRows:
        return self._input.loaded().metric_rows(metric, self._first, self._stop)

    def test_ids(self) -> list[str]:
        """The tests' ids, none of them made."""
        return self._input.loaded().test_ids(self._first, self._stop)

    @property
    def provenance(self) -> tuple[str, ...]:
        """The names of the data files the build was read from, sorted; empty if unknown.

        Our data files are named by their content (:func:`.layout.file_name`),
        so the same names mean the same rows: a site can tell the builds that
        are new since its last build from those it has shown before.
        """
        return self._input.provenance

    def metrics(self) -> set[str]:
        """Every metric the tests measured, none of them made (see :func:`.metrics_in`)."""
        return self._input.loaded().metrics(self._first, self._stop)

    def heads(self, indices: list[int]) -> list[TestHead]:
        """The tests at ``indices`` as :class:`.TestHead`, none of them made: a history
        takes only these of its newest test, and whole tests cost twice as much (0.2 s
        against 0.09 for the newest tests of CSIT's 20,000 series)."""
        indices = [range(len(self))[index] for index in indices]  # IndexError as a tuple's
        return self._input.loaded().heads([self._first + index for index in indices])

    @property
    def span(self) -> tuple[int, int]:
        """Which of its input's tests these are (see :class:`BuildHead`)."""
        return self._first, self._stop

    def __len__(self) -> int:
        return self._stop - self._first


def metric_rows_of(parts: Sequence[StoredTests], metric: str) -> list[MetricRows]:
    """:meth:`StoredTests.metric_rows` of each of ``parts``, in a pass over all their rows.

    A pass costs a few milliseconds however few its rows (a dozen Arrow and
    NumPy calls); a site over a store with one input per build paid that per
    build, hundreds of times per metric, so a history as long again cost
    that much more to read.  Inputs whose columns differ in type go in
    passes of their own.
    """
    found: list[MetricRows] = []
    DeferredInput.load_together(part._input for part in parts)
    for group in _same_schema(parts):
        tables, starts, counts = [], [np.zeros(1, dtype=np.int64)], []
        offset = 0
        for part in group:
            table, own = part._input.loaded()._rows(part._first, part._stop)
            tables.append(table)
            starts.append(own[1:] + offset)
            counts.append(len(own) - 1)
            offset += table.num_rows
        rows = _metric_rows(
            pa.concat_tables(tables),
            np.concatenate(starts),
            metric,
            group[0]._input.loaded().shared,
        )
        found.extend(rows.split(counts))
    return found


def _same_schema(parts: Sequence[StoredTests]) -> Iterator[list[StoredTests]]:
    """``parts`` in runs of consecutive ones whose inputs' columns have the same types."""
    group: list[StoredTests] = []
    for part in parts:
        schema = part._input.loaded().table.schema
        if group and not schema.equals(group[0]._input.loaded().table.schema):
            yield group
            group = []
        group.append(part)
    if group:
        yield group


def prepared_rows(table: pa.Table, *, passed_messages: bool = True) -> pa.Table:
    """One file's rows checked (:func:`.check_rows`) and cut to what a :class:`StoredInput`
    keeps: done file by file, so a store read can do it on its reading threads."""
    check_rows(table)
    if not passed_messages:
        table = without_passed_messages(table, pc.equal(table.column("status"), "PASS"))
    return table.select(list(MODEL_COLUMNS))


def input_rows(tables: list[pa.Table]) -> pa.Table:
    """One input's :func:`prepared_rows` (any partitions) as one table in build and test order.

    One chunk per column: the kept copy is tight, where the files' own
    buffers held a fifth more memory.  The sort is stable, so a test's rows
    keep the order they were written in.
    """
    table = pa.concat_tables(tables)
    builds, tests = _sort_keys(table)
    if _ordered(builds, tests):
        return table.combine_chunks()
    return table.take(pa.array(np.lexsort((tests, builds))))


def unreadable_input(where: str, found: object) -> ValueError:
    """Why a :class:`DeferredInput` could not be read: what it read was damaged after
    the builds were made of what the last read noted."""
    return ValueError(
        f"{where}: no longer readable whole ({found}); the decoded copies' notes are "
        "dropped, so the next build reads every input again"
    )


def builds_from_input(
    table: pa.Table, shared: SharedValues, provenance: tuple[str, ...] = ()
) -> list[Build]:
    """One input's rows as :func:`input_rows` gives them, back into its builds;
    ``provenance`` as for :class:`StoredInput`."""
    return StoredInput(table, shared, provenance).builds()


def builds_from_rows(
    tables: list[pa.Table], shared: SharedValues | None = None, *, passed_messages: bool = True
) -> list[Build]:
    """Our rows (of one input, any partitions) back into that input's builds.

    ``shared`` makes repeated values one object across all the inputs read
    with it (a new one per call without); ``passed_messages=False`` leaves
    passed tests' messages empty (:func:`.without_passed_messages`).  The
    builds' tests are :class:`StoredTests`.
    """
    if not tables:
        return []
    prepared = [prepared_rows(table, passed_messages=passed_messages) for table in tables]
    return builds_from_input(input_rows(prepared), shared or SharedValues())
