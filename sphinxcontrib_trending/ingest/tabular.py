"""Table results (CSV, JSON Lines): the way in for CI systems without Robot.

One row is one test result of one metric in one build.  Required: ``test``,
``build``, ``time`` and (for passed tests) ``value`` or ``values``.
Optional: ``job``, ``status``, ``version``, ``testbed``, ``metric``,
``unit``, ``name``, ``suite``, ``tags``, ``message``, ``start``, and a
telemetry series' ``labels`` (an object, JSON Lines only).  The keys
``sphinx-trending export`` writes (``test_id``, ``dut_version``) are accepted
as aliases, so an export reads back unchanged.  Rows of one (job, build)
become one build, rows of one test in it one test result.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sphinxcontrib_trending.ingest.formats import Reader, Reading
from sphinxcontrib_trending.ingest.limits import too_many_tests
from sphinxcontrib_trending.ingest.model import Build, Measurement, Problem, TestResult
from sphinxcontrib_trending.ingest.naming import stem
from sphinxcontrib_trending.ingest.read_options import ReadOptions
from sphinxcontrib_trending.ingest.results import (
    make_test_id,
    parse_number_list,
    strip_tc_prefix,
    thread_core,
)
from sphinxcontrib_trending.ingest.telemetry import PREFIX, series_metric
from sphinxcontrib_trending.ingest.textcodec import DecodedLines
from sphinxcontrib_trending.ingest.timestamps import as_utc, parse_iso_or_epoch

ALIASES = {"test_id": "test", "dut_version": "version"}
REQUIRED = ("test", "build", "time")


class RowError(ValueError):
    """A row that cannot be read at all (it is skipped)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Row:
    line: int
    fields: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Named:
    """What a test result takes from its first row in a build: names, tags, message, hosts.

    Kept instead of the row, whose fields (its raw values text above all)
    would otherwise stay in memory for every test of every build until the
    table ends; one instance serves every build whose row says the same.
    """

    name: str
    suite: str
    tags: tuple[str, ...]
    message: str
    thread_core: str | None
    attributes: tuple[tuple[str, str], ...]


@dataclass(slots=True)
class _TestDraft:
    named: _Named
    status: str
    start: datetime | None
    measurements: list[Measurement] = field(default_factory=list)


@dataclass
class _BuildDraft:
    job: str
    build: str
    time: datetime
    dut_version: str | None = None
    testbed: str | None = None
    tests: dict[str, _TestDraft] = field(default_factory=dict)


RowSplitter = Callable[[Iterable[str]], Iterable[Row | RowError]]
"""A table format's row syntax, over a document's decoded lines."""


def column(name: str) -> str:
    key = name.strip().lower()
    return ALIASES.get(key, key)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(tag) for tag in value)
    return tuple(tag.strip() for tag in str(value).replace(",", ";").split(";") if tag.strip())


def _hosts(value: Any) -> str:
    """Space-separated addresses; a JSON Lines array as the CSIT model writes them."""
    return " ".join(str(host) for host in value) if isinstance(value, list) else _text(value)


def _values(value: Any) -> tuple[float, ...]:
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number")
    if isinstance(value, int | float):
        return parse_number_list(repr(float(value)))
    if isinstance(value, list):
        return parse_number_list(";".join(_text(item) for item in value))
    return parse_number_list(str(value))


def _raw_values(row: Row) -> Any:
    raw = row.fields.get("values", row.fields.get("value"))
    return None if raw is None or raw == [] else raw


class TableReader:
    """Collects rows of one document into builds, reporting per row.

    A build is refused the moment its tests pass ``max_tests``: its drafts
    are dropped and its later rows are skipped before any of their fields
    is parsed, so a small compressed table of 300,000 tests costs seconds,
    not the minutes of building every test first and counting after.
    """

    def __init__(self, origin: str, options: ReadOptions, default_job: str) -> None:
        self.origin = origin
        self.options = options
        self.default_job = default_job
        self.builds: dict[tuple[str, str], _BuildDraft] = {}
        self.refused: set[tuple[str, str]] = set()
        self.problems: list[Problem] = []
        self._named: dict[tuple[Any, ...], _Named] = {}

    def add(self, row: Row | RowError) -> None:
        if isinstance(row, RowError):
            self.problems.append(Problem(self.origin, f"row skipped: {row}", "parse", row.line))
            return
        try:
            self._add(row)
        except RowError as error:
            self.problems.append(Problem(self.origin, f"row skipped: {error}", "parse", row.line))

    def _add(self, row: Row) -> None:
        fields = row.fields
        missing = [name for name in REQUIRED if name not in fields]
        if missing:
            raise RowError(f"missing {', '.join(missing)}")
        job = _text(fields.get("job", self.default_job))
        key = (job, _text(fields["build"]))
        if key in self.refused:
            return
        try:
            time = parse_iso_or_epoch(_text(fields["time"]))
            start = parse_iso_or_epoch(_text(fields["start"])) if "start" in fields else time
        except ValueError as error:
            raise RowError(str(error)) from None
        test_id = make_test_id(_text(fields["test"]))
        if self._duplicate(self.builds.get(key), test_id, row):
            return  # an ignored row changes nothing: not the build's time either
        build = self.builds.setdefault(key, _BuildDraft(job, key[1], time))
        if test_id not in build.tests and len(build.tests) >= self.options.limits.max_tests:
            self._refuse(key, row)
            return
        build.time = max(build.time, time)
        build.dut_version = self._agree(build.dut_version, fields.get("version"), "version", row)
        build.testbed = self._agree(build.testbed, fields.get("testbed"), "testbed", row)
        status = sys.intern(_text(fields.get("status", "PASS")).upper())  # one per row otherwise
        draft = build.tests.get(test_id)
        if draft is None:
            draft = build.tests[test_id] = _TestDraft(self._named_by(fields), status, start)
        if status != "PASS":
            draft.status = status
        self._measure(draft, row)

    def _refuse(self, key: tuple[str, str], row: Row) -> None:
        del self.builds[key]
        self.refused.add(key)
        where = f"build {key[0]}/{key[1]}"
        message = f"{where} {too_many_tests(self.options.limits.max_tests)}"
        self.problems.append(Problem(self.origin, message, "data", row.line))

    def _agree(self, known: str | None, value: Any, what: str, row: Row) -> str | None:
        if value is None:
            return known
        text = _text(value)
        if known is not None and text != known:
            self.problems.append(
                Problem(
                    self.origin,
                    f"{what} {text!r} differs from {known!r} of the same build; kept the first",
                    "data",
                    row.line,
                )
            )
            return known
        return text

    def _duplicate(self, build: _BuildDraft | None, test_id: str, row: Row) -> bool:
        """Is this a second result of one metric for the same test, job and build?"""
        draft = None if build is None else build.tests.get(test_id)
        if draft is None or _raw_values(row) is None:
            return False
        metric = self._metric(row.fields)
        if not any(known.metric == metric for known in draft.measurements):
            return False
        self.problems.append(
            Problem(
                self.origin,
                f"second {metric} result of the same test and build ignored",
                "duplicate",
                row.line,
            )
        )
        return True

    def _metric(self, fields: dict[str, Any]) -> str:
        """The row's metric, with a telemetry series' ``labels`` (as ``export`` writes them)."""
        metric = _text(fields.get("metric", self.options.metric))
        labels = fields.get("labels")
        if not isinstance(labels, dict) or not labels or not metric.startswith(PREFIX):
            return metric
        named = {_text(key): _text(value) for key, value in labels.items()}
        return series_metric(metric.removeprefix(PREFIX), named)

    def _measure(self, draft: _TestDraft, row: Row) -> None:
        fields = row.fields
        raw = _raw_values(row)
        if raw is None:
            return
        metric = self._metric(fields)
        unit = _text(fields.get("unit", self.options.unit or ""))
        try:
            draft.measurements.append(Measurement(metric, unit, _values(raw)))
        except ValueError as error:
            self.problems.append(
                Problem(
                    self.origin,
                    f"malformed values, test kept without them: {error}",
                    "data",
                    row.line,
                )
            )

    def _named_by(self, fields: dict[str, Any]) -> _Named:
        """The names of the row's test, made once for every build whose row gives the same."""
        key = tuple(map(_hashable, map(fields.get, _NAMING)))
        named = self._named.get(key)
        if named is None:
            named = self._named[key] = _named(fields)
        return named

    def result(self) -> list[Build]:
        """The builds, each made as its drafts are dropped: the table is never held twice."""
        builds = []
        while self.builds:
            draft = self.builds.pop(next(iter(self.builds)))
            builds.append(self._build(draft))
        return builds

    def _build(self, draft: _BuildDraft) -> Build:
        return Build(
            job=draft.job,
            build=draft.build,
            time=as_utc(draft.time),
            dut_version=draft.dut_version,
            testbed=draft.testbed,
            origin=self.origin,
            tests=tuple(_test(test_id, test) for test_id, test in draft.tests.items()),
        )


_NAMING = ("test", "name", "suite", "tags", "message", "hosts")
"""The columns a test result's :class:`_Named` is made from."""


def _hashable(value: Any) -> Any:
    """A JSON Lines value as a key; a list or object never equals a text."""
    return value if value is None or isinstance(value, str) else ("json", json.dumps(value))


def _named(fields: dict[str, Any]) -> _Named:
    full = _text(fields["test"])
    suite, _, last = full.rpartition(".")
    tags = _tags(fields["tags"]) if "tags" in fields else ()
    hosts = fields.get("hosts")
    return _Named(
        name=_text(fields.get("name", strip_tc_prefix(last))),
        suite=_text(fields.get("suite", suite)),
        tags=tags,
        message=_text(fields.get("message", "")),
        thread_core=thread_core(tags),
        attributes=(("hosts", _hosts(hosts)),) if hosts else (),
    )


def _test(test_id: str, draft: _TestDraft) -> TestResult:
    named = draft.named
    return TestResult(
        test_id=test_id,
        name=named.name,
        suite=named.suite,
        tags=named.tags,
        status=draft.status,
        start=draft.start,
        message=named.message,
        measurements=tuple(draft.measurements) if draft.status == "PASS" else (),
        thread_core=named.thread_core,
        attributes=named.attributes,
    )


def read_table(split: RowSplitter, reading: Reading) -> tuple[list[Build], list[Problem]]:
    """Every build of one table document, and the rows it could not use.

    ``split`` is the format's own row syntax (CSV records, JSON lines) over
    the document's decoded lines (see :class:`DecodedLines`); they are
    consumed here, so read errors are reported here.
    """
    origin = reading.where
    reader = TableReader(origin, reading.options, stem(reading.names[0]))
    lines = DecodedLines(reading.stream, reading.options.encoding)
    try:
        for row in split(lines):
            reader.add(row)
    except (csv.Error, UnicodeDecodeError) as error:
        reader.problems.append(Problem(origin, f"cannot read further: {error}", "parse"))
    if lines.fallback_line is not None:
        message = "not valid UTF-8 from here on: read as Latin-1 (set the source's encoding)"
        reader.problems.append(Problem(origin, message, "parse", lines.fallback_line))
    builds = reader.result()
    if not builds and not reader.problems:
        reader.problems.append(Problem(origin, "no result rows in this file", "parse"))
    return builds, reader.problems


def table_reader(split: RowSplitter) -> Reader:
    """The reader of a table format, given how it splits a document into rows."""
    return lambda reading: read_table(split, reading)
