"""Robot Framework ``output.xml``: one document is one build.

The XML is read by :mod:`~sphinxcontrib_trending.ingest.robot`; here the run
gets its job, build, time and testbed.  A document that is plainly a CSV or
JSON Lines table is not parsed: its problem says which format to set.
"""

from __future__ import annotations

import re
from dataclasses import replace

from sphinxcontrib_trending.ingest.formats import InputFormat, Reading
from sphinxcontrib_trending.ingest.model import Build, Problem
from sphinxcontrib_trending.ingest.naming import build_testbed, identify
from sphinxcontrib_trending.ingest.robot import read_robot
from sphinxcontrib_trending.ingest.robot_values import ValueRule
from sphinxcontrib_trending.ingest.sniffing import not_robot_hint, sniffed_table


def read(reading: Reading) -> tuple[list[Build], list[Problem]]:
    table = sniffed_table(reading.stream.head)
    if table is not None:
        return [], [Problem(reading.where, not_robot_hint(table), "parse")]
    options = reading.options
    run = read_robot(
        reading.stream,
        reading.where,
        version_pattern=options.version_pattern,
        want_tg=bool(options.testbed_map),
        values=ValueRule(
            options.value_pattern, options.value_keyword, options.metric, options.unit or ""
        ),
        max_tests=options.limits.max_tests,
    )
    problems = list(run.problems)
    if not run.tests:
        return [], problems
    time = run.end or run.generated or max((t.start for t in run.tests if t.start), default=None)
    if time is None:
        problems.append(
            Problem(
                reading.where,
                "no build time (no end time, generated or test start); skipped",
                "parse",
            )
        )
        return [], problems
    job, build, complaint = identify(options.build_pattern, list(reading.names), time, run.name)
    if complaint is not None:
        problems.append(Problem(reading.where, complaint, "data"))
    testbed = run.testbed or build_testbed(options, job, (run.tg_address,))
    tests = tuple(run.tests)
    if run.hosts:
        hosts = ("hosts", " ".join(run.hosts))
        tests = tuple(
            replace(test, attributes=tuple(sorted((*test.attributes, hosts)))) for test in tests
        )
    return [Build(job, build, time, run.dut_version, testbed, reading.where, tests)], problems


FORMAT = InputFormat(
    name="robot",
    documents=re.compile(r"output[^/]*\.xml$", re.IGNORECASE),
    read=read,
    own_options=frozenset({"value_pattern", "value_keyword"}),
)
