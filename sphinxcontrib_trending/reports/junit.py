"""Verdicts as JUnit XML, the report format Jenkins and GitLab both show.

The writer takes plain :class:`Case` rows so that any check (trend verdicts
today, baseline comparisons later) can be reported the same way; lxml does
the escaping, so a test name holding ``<`` or ``&`` stays well-formed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from lxml import etree

from sphinxcontrib_trending.analysis.verdicts import Reason, Verdict
from sphinxcontrib_trending.reports.records import (
    GraphLinks,
    describe,
    first_line,
    format_value,
    record,
)


@dataclass(frozen=True)
class Case:
    """One ``<testcase>``: passed, failed (``failure_type`` set) or skipped."""

    classname: str
    name: str
    failure_type: str | None = None
    failure_message: str = ""
    details: str = ""
    skipped: str | None = None
    output: str = ""
    properties: Sequence[tuple[str, str]] = field(default_factory=tuple)
    """Named facts a CI can read without parsing ``output`` (the verdict's pages)."""


@dataclass(frozen=True)
class Suite:
    """One ``<testsuite>``: the cases of one source (or one check)."""

    name: str
    cases: Sequence[Case]
    timestamp: datetime | None = None
    properties: Sequence[tuple[str, str]] = field(default_factory=tuple)


def _totals(element: etree._Element, cases: Sequence[Case]) -> None:
    element.set("tests", str(len(cases)))
    element.set("failures", str(sum(case.failure_type is not None for case in cases)))
    element.set("errors", "0")
    element.set("skipped", str(sum(case.skipped is not None for case in cases)))
    element.set("time", "0")


def junit_tree(name: str, suites: Iterable[Suite]) -> etree._ElementTree:
    """The ``<testsuites>`` document with totals on every level, as Jenkins and GitLab read them."""
    root = etree.Element("testsuites", name=name)
    every_case: list[Case] = []
    for suite in suites:
        element = etree.SubElement(root, "testsuite", name=suite.name)
        _totals(element, suite.cases)
        if suite.timestamp is not None:
            element.set("timestamp", suite.timestamp.replace(microsecond=0).isoformat())
        _properties(element, suite.properties)
        for case in suite.cases:
            _case(element, case)
        every_case.extend(suite.cases)
    _totals(root, every_case)
    return etree.ElementTree(root)


def _case(parent: etree._Element, case: Case) -> None:
    element = etree.SubElement(
        parent, "testcase", classname=_xml_safe(case.classname), name=_xml_safe(case.name)
    )
    element.set("time", "0")
    _properties(element, case.properties)
    if case.failure_type is not None:
        failure = etree.SubElement(
            element,
            "failure",
            type=_xml_safe(case.failure_type),
            message=_xml_safe(case.failure_message),
        )
        failure.text = _xml_safe(case.details)
    elif case.skipped is not None:
        etree.SubElement(element, "skipped", message=_xml_safe(case.skipped))
    if case.output:
        etree.SubElement(element, "system-out").text = _xml_safe(case.output)


def _properties(parent: etree._Element, facts: Sequence[tuple[str, str]]) -> None:
    if facts:
        properties = etree.SubElement(parent, "properties")
        for key, value in facts:
            etree.SubElement(properties, "property", name=key, value=_xml_safe(value))


def _xml_safe(text: str) -> str:
    """XML 1.0 cannot carry most control characters, even escaped: drop them."""
    return "".join(
        char for char in text if char in "\t\n\r" or (char >= " " and char not in "\ufffe\uffff")
    )


def write_junit(path: Path, tree: etree._ElementTree) -> None:
    """UTF-8 with an XML declaration: some JUnit readers guess the encoding otherwise."""
    tree.write(str(path), xml_declaration=True, encoding="UTF-8", pretty_print=True)


def _end(end: dict[str, str | None] | None, name: str) -> str:
    """A fact of one end of a change's range (see :func:`~.records.run_record`), or ""."""
    return (end or {}).get(name) or ""


def verdict_case(verdict: Verdict, fail_on: frozenset[Reason], links: GraphLinks) -> Case:
    """A verdict that fails the job is a failure; a Missing test that does not is skipped."""
    history = verdict.history
    facts = record(verdict, fail_on, links)
    numbers = (
        ("value", format_value(verdict, verdict.value)),
        ("trend", format_value(verdict, verdict.trend)),
        ("previous trend", format_value(verdict, verdict.previous_trend)),
        ("since", facts["since"] or ""),
        ("graph", facts["graph"] or ""),
        ("build page", facts["build_url"] or ""),
        ("since build page", facts["since_build_url"] or ""),
        ("since version page", facts["since_version_url"] or ""),
        ("range", verdict.change_range.text() if verdict.change_range else ""),
        ("last good build page", _end(facts["last_good"], "build_url")),
        ("first bad build page", _end(facts["first_bad"], "build_url")),
        ("compare page", facts["compare_url"] or ""),
    )
    output = "\n".join(
        [f"build: {verdict.job_build}", f"reason: {verdict.reason.value}"]
        + [f"{label}: {text}" for label, text in numbers if text]
    )
    pages = (
        ("graph", facts["graph"]),
        ("build_url", facts["build_url"]),
        ("version_url", facts["version_url"]),
        ("since_build_url", facts["since_build_url"]),
        ("since_version_url", facts["since_version_url"]),
        ("last_good_build_url", _end(facts["last_good"], "build_url")),
        ("first_bad_build_url", _end(facts["first_bad"], "build_url")),
        ("compare_url", facts["compare_url"]),
    )
    properties = tuple((name, url) for name, url in pages if url)
    classname = ".".join(part for part in (verdict.source, history.testbed, history.suite) if part)
    summary = f"{verdict.reason.value}: {describe(verdict)}"
    if verdict.fails(fail_on):
        return Case(
            classname=classname,
            name=history.display_name,
            failure_type=verdict.reason.value,
            failure_message=first_line(summary),
            details=verdict.message.strip() or summary,
            output=output,
            properties=properties,
        )
    skipped = summary if verdict.reason is Reason.MISSING else None
    return Case(
        classname=classname,
        name=history.display_name,
        skipped=skipped,
        output=output,
        properties=properties,
    )
