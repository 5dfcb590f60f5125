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
from collections.abc import Iterator
from datetime import datetime
from functools import cache
from importlib import resources
from pathlib import PurePosixPath
from typing import Any

import jsonschema
import yaml

from sphinxcontrib_trending.ingest.formats import InputFormat, Reading
from sphinxcontrib_trending.ingest.metrics import (
    LATENCY_DIRECTIONS,
    LATENCY_LOADS,
    LATENCY_STATISTICS,
    METRICS,
    latency_metric,
)
from sphinxcontrib_trending.ingest.model import Build, Measurement, Problem, TestResult
from sphinxcontrib_trending.ingest.naming import (
    DEFAULT_BUILD_PATTERN,
    identify,
    stem,
    testbed_from_address,
    testbed_from_job,
)
from sphinxcontrib_trending.ingest.results import strip_tc_prefix, thread_core
from sphinxcontrib_trending.ingest.timestamps import parse_iso_or_epoch

_KEPT_ATTRIBUTES = ("dut_type", "tg_type", "tg_version", "test_type", "version")


@cache
def _validator() -> jsonschema.protocols.Validator:
    """The vendored schema, accepting every 1.x model version.

    The schema pins its own version (``const``); older and newer 1.x
    exporters write the same structure, so only the major version is held.
    """
    text = resources.files("sphinxcontrib_trending.schemas").joinpath("test_case.schema.yaml")
    schema = yaml.safe_load(text.read_text(encoding="utf-8"))
    schema["allOf"][0]["properties"]["version"] = {"type": "string", "pattern": r"^1\."}
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


def read(reading: Reading) -> tuple[list[Build], list[Problem]]:
    if not FORMAT.is_document(reading.names[0]):  # suite, setup, teardown: not tests
        return [], []
    try:
        document = json.load(reading.stream)
    except (ValueError, UnicodeDecodeError) as error:
        return [], [Problem(reading.where, f"not JSON: {error}", "parse")]
    error = jsonschema.exceptions.best_match(_validator().iter_errors(document))
    if error is not None:
        message = f"not a CSIT test model document: at {error.json_path}: {error.message}"
        return [], [Problem(reading.where, message, "parse")]
    try:
        start = parse_iso_or_epoch(document["start_time"])
    except ValueError as complaint:
        return [], [Problem(reading.where, f"at $.start_time: {complaint}", "parse")]
    problems: list[Problem] = []
    job, build = _job_and_build(reading, start, problems)
    test = _test(document, start)
    hosts = document["hosts"]
    options = reading.options
    testbed = testbed_from_job(options, job) or next(
        (found for host in hosts if (found := testbed_from_address(options, host))), None
    )
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


def _test(document: dict[str, Any], start: datetime) -> TestResult:
    test_id: str = document["test_id"]
    suite, _, name = test_id.rpartition(".")
    tags = tuple(document["tags"])
    passed = document["passed"]
    attributes = [(key, str(document[key])) for key in _KEPT_ATTRIBUTES]
    attributes.append(("hosts", " ".join(document["hosts"])))
    return TestResult(
        test_id=test_id,
        name=strip_tc_prefix(name),
        suite=suite,
        tags=tags,
        status="PASS" if passed else "FAIL",
        start=start,
        message=document["message"],
        measurements=tuple(_measurements(document["result"])) if passed else (),
        thread_core=thread_core(tags),
        attributes=tuple(sorted(attributes)),
    )


def _one(metric: str, quantity: dict[str, Any]) -> Measurement:
    return Measurement(metric, quantity.get("unit") or METRICS[metric].unit, (quantity["value"],))


def _rate_and_bandwidth(prefix: str, bound: dict[str, Any]) -> Iterator[Measurement]:
    """A ``rate_with_bandwidth``: the rate as ``prefix``, bandwidth as ``{prefix}_bandwidth``."""
    yield _one(prefix, bound["rate"])
    if "bandwidth" in bound:
        yield _one(f"{prefix}_bandwidth", bound["bandwidth"])


def _measurements(result: dict[str, Any]) -> Iterator[Measurement]:
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
        for direction in LATENCY_DIRECTIONS:
            loads = result.get(f"latency_{direction}")
            for load in LATENCY_LOADS if loads else ():
                numbers = loads[f"pdr_{load}"]
                for statistic in LATENCY_STATISTICS:
                    metric = latency_metric(load, direction, statistic)
                    yield Measurement(metric, numbers["unit"], (numbers[statistic],))
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
