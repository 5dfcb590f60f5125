"""The FD.io CSIT JSON test model (``*.info.json``): one document is one test.

Each document is checked against the reference's schema (vendored under
``sphinxcontrib_trending/schemas``); an invalid one is a single problem
naming the JSON path at fault.  Job and build come from the path, as the
reference's ETL takes them (``.../{job}/{build}/archives/tests/...``); the
loader joins the tests of one build (``merges_builds``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import cache
from importlib import resources
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

import fastjsonschema
import yaml

from sphinxcontrib_trending.ingest.formats import InputFormat, Reading
from sphinxcontrib_trending.ingest.latency_streams import stream_latencies
from sphinxcontrib_trending.ingest.limits import ReadLimits
from sphinxcontrib_trending.ingest.metrics import (
    LATENCY_DIRECTIONS,
    LATENCY_LOADS,
    LATENCY_STATISTICS,
    METRICS,
)
from sphinxcontrib_trending.ingest.model import Build, Measurement, Problem, TestResult
from sphinxcontrib_trending.ingest.naming import (
    DEFAULT_BUILD_PATTERN,
    build_testbed,
    identify,
    stem,
)
from sphinxcontrib_trending.ingest.results import strip_tc_prefix, thread_core
from sphinxcontrib_trending.ingest.telemetry import read_telemetry
from sphinxcontrib_trending.ingest.timestamps import parse_iso_or_epoch

if TYPE_CHECKING:
    import jsonschema

_KEPT_ATTRIBUTES = ("dut_type", "tg_type", "tg_version", "test_type", "version")


@cache
def _schema() -> dict[str, Any]:
    """The vendored schema, accepting every 1.x model version.

    The schema pins its own version (``const``); older and newer 1.x
    exporters write the same structure, so only the major version is held.
    """
    text = resources.files("sphinxcontrib_trending.schemas").joinpath("test_case.schema.yaml")
    schema: dict[str, Any] = yaml.safe_load(text.read_text(encoding="utf-8"))
    schema["allOf"][0]["properties"]["version"] = {"type": "string", "pattern": r"^1\."}
    return schema


@cache
def _validator() -> jsonschema.protocols.Validator:
    """The full validator: it names the JSON path of a problem.

    Imported only when a document fails :func:`_fast_check`: jsonschema took
    a sixteenth of a second of every ingest, which asks each format whether
    it claims the inputs (see ``sphinx-trending ingest``'s format guess).
    """
    import jsonschema

    schema = _schema()
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


@cache
def _fast_check() -> Callable[[Any], Any]:
    """The same schema compiled to Python by ``fastjsonschema``: the fast path.

    It checks a valid document about 50 times faster than ``jsonschema``
    walks it, and every document a CI archive holds is valid, so only a
    rejected document is handed to :func:`_validator` for its message.  The
    schema uses nothing draft 7 lacks (its ``$ref`` have no siblings but
    descriptions); ``date-time`` is left unchecked, as ``jsonschema`` leaves
    formats, and ``start_time`` is parsed anyway.  Only our vendored schema
    is compiled, never anything from the data.
    """
    schema = {key: value for key, value in _schema().items() if key not in ("$id", "$schema")}
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    return fastjsonschema.compile(schema, formats={"date-time": lambda _value: True})


def schema_error(document: Any) -> jsonschema.ValidationError | None:
    """Why ``document`` is not a valid test model document, or None if it is."""
    try:
        _fast_check()(document)
    except fastjsonschema.JsonSchemaException:
        from jsonschema.exceptions import best_match

        return best_match(_validator().iter_errors(document))
    return None


def read(reading: Reading) -> tuple[list[Build], list[Problem]]:
    if not FORMAT.is_document(reading.names[0]):  # suite, setup, teardown: not tests
        return [], []
    try:
        document = json.load(reading.stream)
    except (ValueError, UnicodeDecodeError) as error:
        return [], [Problem(reading.where, f"not JSON: {error}", "parse")]
    error = schema_error(document)
    if error is not None:
        message = f"not a CSIT test model document: at {error.json_path}: {error.message}"
        return [], [Problem(reading.where, message, "parse")]
    try:
        start = parse_iso_or_epoch(document["start_time"])
    except ValueError as complaint:
        return [], [Problem(reading.where, f"at $.start_time: {complaint}", "parse")]
    problems: list[Problem] = []
    job, build = _job_and_build(reading, start, problems)
    test, errors = _test(document, start, reading.options.limits)
    problems.extend(
        Problem(reading.where, f"test {test.test_id}: {error}", "data") for error in errors
    )
    testbed = build_testbed(reading.options, job, document["hosts"])
    return [Build(job, build, start, document["dut_version"], testbed, reading.where, (test,))], (
        problems
    )


def _job_and_build(reading: Reading, start: datetime, problems: list[Problem]) -> tuple[str, str]:
    """From ``{job}/{build}/archives/``; else the build pattern; else the folder and the day.

    With the default pattern unmatched, the folder holding the document
    (the archive's name for a member at its root) is the job and the test's
    UTC day the build: a plain folder of one day's results is one build,
    and nothing is wrong.
    """
    for name in reading.names:
        parts = PurePosixPath(name.replace("\\", "/")).parts
        if "archives" in parts[2:]:
            at = parts.index("archives", 2)
            return parts[at - 2], parts[at - 1]
    options = reading.options
    if options.build_pattern.pattern == DEFAULT_BUILD_PATTERN and not any(
        options.build_pattern.search(name) for name in reading.names
    ):
        folder = PurePosixPath(reading.names[0].replace("\\", "/")).parent.name
        return folder or stem(reading.names[-1]), start.strftime("%Y%m%d")
    job, build, complaint = identify(options.build_pattern, list(reading.names), start)
    if complaint is not None:
        problems.append(Problem(reading.where, complaint, "data"))
    return job, build


def _test(
    document: dict[str, Any], start: datetime, limits: ReadLimits
) -> tuple[TestResult, list[str]]:
    """The test, and what was wrong with its results (an undecodable histogram, telemetry)."""
    test_id: str = document["test_id"]
    suite, _, name = test_id.rpartition(".")
    tags = tuple(document["tags"])
    passed = document["passed"]
    attributes = [(key, str(document[key])) for key in _KEPT_ATTRIBUTES]
    attributes.append(("hosts", " ".join(document["hosts"])))
    found = _Results()
    if passed:  # a failed test measured nothing, its counters included
        found.read(document["result"])
        telemetry = read_telemetry(
            document["telemetry"], limits.max_telemetry_bytes, limits.max_telemetry_series
        )
        found.measurements.extend(telemetry.measurements)
        found.errors.extend(telemetry.errors)
    attributes.extend(found.histograms)
    test = TestResult(
        test_id=test_id,
        name=strip_tc_prefix(name),
        suite=suite,
        tags=tags,
        status="PASS" if passed else "FAIL",
        start=start,
        message=document["message"],
        measurements=tuple(found.measurements),
        thread_core=thread_core(tags),
        attributes=tuple(sorted(attributes)),
    )
    return test, found.errors


def _one(metric: str, quantity: dict[str, Any]) -> Measurement:
    return Measurement(metric, quantity.get("unit") or METRICS[metric].unit, (quantity["value"],))


def _rate_and_bandwidth(prefix: str, bound: dict[str, Any]) -> Iterator[Measurement]:
    """A ``rate_with_bandwidth``: the rate as ``prefix``, bandwidth as ``{prefix}_bandwidth``."""
    yield _one(prefix, bound["rate"])
    if "bandwidth" in bound:
        yield _one(f"{prefix}_bandwidth", bound["bandwidth"])


class _Results:
    """A result object's measurements, its latencies' histograms, and what would not decode."""

    def __init__(self) -> None:
        self.measurements: list[Measurement] = []
        self.histograms: list[tuple[str, str]] = []
        self.errors: list[str] = []

    def read(self, result: dict[str, Any]) -> None:
        for measurement in _measurements(result):
            try:
                values = tuple(map(_as_float, measurement.values))
            except ValueError as error:
                self.errors.append(f"{measurement.metric}: {error}; left out")
                continue
            self.measurements.append(Measurement(measurement.metric, measurement.unit, values))
        if result["type"] != "ndrpdr":
            return
        for direction in LATENCY_DIRECTIONS:
            loads = result.get(f"latency_{direction}")
            for load in LATENCY_LOADS if loads else ():
                numbers = loads[f"pdr_{load}"]
                base = f"latency_pdr{load}_{direction}"
                try:
                    statistics = tuple(_as_float(numbers[name]) for name in LATENCY_STATISTICS)
                except ValueError as error:
                    self.errors.append(f"{base}: {error}; left out")
                    continue
                found = stream_latencies(base, statistics, numbers["hdrh"], numbers["unit"])
                self.measurements.extend(found.measurements)
                self.histograms.extend(found.histograms)
                self.errors.extend(found.errors)


_INT64 = range(-(2**63), 2**63)


def _as_float(value: int | float) -> float:
    """A JSON number as the float the store keeps; ``ValueError`` for an integer beyond int64.

    Python reads JSON integers exactly, however long; one past 64 bits is
    no counter value (an unsigned underflow, a corrupt writer) and would not
    survive the store's columns, so it is reported rather than rounded.
    """
    if isinstance(value, int) and value not in _INT64:
        shown = str(value) if value.bit_length() < 256 else f"a {value.bit_length()}-bit integer"
        raise ValueError(f"value {shown} does not fit a 64-bit integer")
    return float(value)


def _measurements(result: dict[str, Any]) -> Iterator[Measurement]:
    """Every result type's numbers but the latencies (:class:`_Results` reads those)."""
    kind = result["type"]
    if kind == "mrr":
        received = result["receive_rate"]
        for metric, trials in (
            ("mrr", received["rate"]),
            ("mrr_bandwidth", received.get("bandwidth")),
        ):
            if trials and trials["values"]:
                yield Measurement(metric, trials["unit"], tuple(trials["values"]))
    elif kind == "ndrpdr":
        for search in ("ndr", "pdr"):
            yield from _rate_and_bandwidth(search, result[search]["lower"])
            if "upper" in result[search]:
                yield _one(f"{search}_upper", result[search]["upper"]["rate"])
    elif kind == "soak":
        critical = result["critical_rate"]
        yield _one("soak_lower", critical["lower"]["rate"])
        if "upper" in critical:
            yield _one("soak_upper", critical["upper"]["rate"])
    elif kind == "reconf":
        yield _one("reconf_loss", result["loss"]["packet"])
        yield _one("reconf_time_lost", result["loss"]["time"])
    elif kind == "hoststack":
        yield _one("hoststack_bps", result["bandwidth"])
        for part in ("rate", "latency", "completed_requests", "failed_requests", "retransmits"):
            if part in result:
                yield _one(f"hoststack_{part}", result[part])
        if "duration" in result:
            yield _one("hoststack_duration", result["duration"])


FORMAT = InputFormat(
    name="csit-json",
    documents=re.compile(r"^(?!(suite|setup|teardown)\.).*\.info\.json$", re.IGNORECASE),
    read=read,
    merges_builds=True,
)
