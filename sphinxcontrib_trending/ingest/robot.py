"""Streaming reader of Robot Framework ``output.xml``, RF 2.9 to RF 7.

Memory stays bounded by one test: ``iterparse`` reports only the ends of
``suite`` and ``test`` elements, every finished test is cleared, and
finished siblings are deleted when the next one ends.  Keyword messages are
read (for the DUT version and the TG address) only until what is looked for
has been found, so most of the document is never touched from Python.
Reading stops at the end of the top suite: statistics and errors are not
results.  Tests come out with the status Robot Framework itself reports
(suite teardowns applied, twin names told apart: :mod:`.robot_suites`) and
the measurements a :class:`~.robot_values.ValueRule` finds.

Both schemas are read side by side; they differ in:

* times: ``starttime``/``endtime`` (RF <= 6) or ``start`` + ``elapsed`` (RF 7);
* tags: ``<tags><tag/></tags>`` (RF <= 3) or ``<tag/>`` under ``<test>``;
* metadata: ``<metadata><item name=/></metadata>`` (RF <= 3) or ``<meta name=/>``.
"""

from __future__ import annotations

import lzma
import re
import zlib
from dataclasses import dataclass, field
from datetime import datetime

from lxml import etree

from sphinxcontrib_trending.ingest.limits import DEFAULT_LIMITS, too_many_tests
from sphinxcontrib_trending.ingest.model import Measurement, Problem, TestResult
from sphinxcontrib_trending.ingest.replay import Readable
from sphinxcontrib_trending.ingest.results import make_test_id, strip_tc_prefix, thread_core
from sphinxcontrib_trending.ingest.robot_suites import OpenSuite
from sphinxcontrib_trending.ingest.robot_values import ValueRule
from sphinxcontrib_trending.ingest.safexml import PARSER_OPTIONS, UnsafeXmlError, guarded
from sphinxcontrib_trending.ingest.timestamps import (
    TimeRangeError,
    add_elapsed,
    parse_elapsed,
    parse_robot_time,
)

_ADDRESS = r"[0-9A-Fa-f.:]*[0-9A-Fa-f]"
NODE_SETUP = re.compile(
    rf"Setup of (?:(?P<kind>TG|DUT)\d* node (?P<address>{_ADDRESS})"
    rf"|node (?P<new_kind>TG|DUT)\d* host (?P<new_address>{_ADDRESS}))"
)
"""CSIT's framework setup: ``Setup of TG node 10.30.51.49 done`` (older) or
``Setup of node TG host 10.30.51.49, port 22 done.`` (newer), per TG and DUT."""


@dataclass
class RobotRun:
    """What one output.xml says, before the file name gives it a job and build.

    When the document breaks off, the tests read before the break are kept
    (their results are real) and a problem says so.  ``name`` is the top
    suite's: plain Robot Framework output names its job after it.
    """

    name: str | None = None
    generated: datetime | None = None
    end: datetime | None = None
    dut_version: str | None = None
    testbed: str | None = None
    tg_address: str | None = None
    hosts: list[str] = field(default_factory=list)
    """TG and DUT addresses of the node setup messages, in order (the physical testbed)."""
    tests: list[TestResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def status_end(status: etree._Element) -> datetime | None:
    """End time of a ``<status>`` element in either schema."""
    end = parse_robot_time(status.get("endtime"))
    if end is not None:
        return end
    start = parse_robot_time(status.get("start"))
    elapsed = parse_elapsed(status.get("elapsed"))
    if start is None or elapsed is None:
        return None
    return add_elapsed(start, elapsed)


def status_start(status: etree._Element) -> datetime | None:
    """Start time of a ``<status>`` element in either schema."""
    return parse_robot_time(status.get("starttime") or status.get("start"))


class _Reader:
    """One pass over one document; state lives here, not in closures.

    Only ``end`` events of ``suite`` and ``test`` reach Python.  A test's
    suite path is read from its (still open) ancestors and remembered per
    suite element, so the per-test work is a dictionary lookup.
    """

    def __init__(
        self,
        origin: str,
        version_pattern: re.Pattern[str],
        want_tg: bool,
        values: ValueRule,
        max_tests: int,
    ) -> None:
        self.origin = origin
        self.max_tests = max_tests
        self.version_pattern = version_pattern
        self.want_tg = want_tg
        self.values = values
        self.run = RobotRun()
        self.suites: dict[etree._Element, OpenSuite] = {}
        self.early_testbeds: dict[etree._Element, str] = {}

    def read(self, stream: Readable) -> RobotRun:
        events = etree.iterparse(
            guarded(stream),
            events=("end",),
            tag=("suite", "test"),
            remove_blank_text=True,
            **PARSER_OPTIONS,
        )
        for _event, element in events:
            if self.run.generated is None:
                self.run.generated = parse_robot_time(
                    element.getroottree().getroot().get("generated")
                )
            if element.tag == "test":
                self._test(element)
            elif self._suite_end(element):
                break
        if not self.run.tests:
            self.run.problems.append(Problem(self.origin, "no test found in this file", "parse"))
        return self.run

    def _suite(self, element: etree._Element) -> OpenSuite:
        known = self.suites.get(element)
        if known is None:
            parent = element.getparent()
            name = element.get("name", "")
            first = len(self.run.tests)
            if parent is not None and parent.tag == "suite":
                outer = self._suite(parent)
                known = OpenSuite(
                    f"{outer.long_name}.{name}", f"{outer.id_prefix}.{make_test_id(name)}", first
                )
            else:
                known = OpenSuite(name, make_test_id(name), first)
            self.suites[element] = known
        return known

    def _drop_previous(self, element: etree._Element) -> None:
        """Finished siblings (setup keywords, earlier tests) are read once, then freed.

        Metadata written before the children (some old writers did) is kept
        for the enclosing suite before its element goes.
        """
        parent = element.getparent()
        if parent is None:
            return
        while (first := parent[0]) is not element:
            self._scan_messages(first)
            if testbed := _metadata_in(first, "testbed"):
                self.early_testbeds[parent] = testbed
            del parent[0]

    def _searching(self) -> bool:
        """Are messages still worth reading (version or TG address not found yet)?"""
        run = self.run
        return run.dut_version is None or (self.want_tg and run.tg_address is None)

    def _scan_messages(self, element: etree._Element) -> None:
        if not self._searching():
            return
        run = self.run
        for message in element.iter("msg"):
            text = message.text
            if not text:
                continue
            if run.dut_version is None and (found := self.version_pattern.search(text)):
                run.dut_version = _version_of(found)
            if "Setup of" in text and (node := NODE_SETUP.search(text)):
                address = node["address"] or node["new_address"]
                if address not in run.hosts:
                    run.hosts.append(address)
                if run.tg_address is None and "TG" in (node["kind"], node["new_kind"]):
                    run.tg_address = address

    def _test(self, element: etree._Element) -> None:
        if self._searching():
            # Outer suites' setups come first in the document: read them first.
            for ancestor in reversed(list(element.iterancestors("suite"))):
                self._drop_previous(ancestor)
        self._drop_previous(element)
        self._scan_messages(element)
        parent = element.getparent()
        suite = self._suite(parent) if parent is not None else OpenSuite("", "", 0)
        name = element.get("name", "")
        tags = tuple(tag.text or "" for tag in element.iterchildren("tag")) or tuple(
            tag.text or "" for tag in element.iterfind("tags/tag")
        )
        status = element[-1] if len(element) else None
        if status is not None and status.tag != "status":
            status = element.find("status")
        status_name = "FAIL" if status is None else status.get("status", "FAIL")
        message = "" if status is None else (status.text or "")
        measurements: tuple[Measurement, ...] = ()
        attributes: tuple[tuple[str, str], ...] = ()
        if status_name == "PASS" and status is not None:
            found = self.values.measure(element, status, message)
            measurements, attributes = found.measurements, found.attributes
            self.run.problems.extend(
                Problem(self.origin, f"test {suite.long_name}.{name}: {error}", "data")
                for error in found.errors
            )
        short = strip_tc_prefix(name)
        test_id = f"{suite.id_prefix}.{make_test_id(name) if '.' in name else short.lower()}"
        suite.seat(element, test_id, len(self.run.tests))
        self.run.tests.append(
            TestResult(
                test_id=test_id,
                name=short,
                suite=suite.long_name,
                tags=tags,
                status=status_name,
                start=None if status is None else status_start(status),
                message=message,
                measurements=measurements,
                thread_core=thread_core(tags),
                attributes=attributes,
            )
        )
        element.clear()
        if len(self.run.tests) > self.max_tests:
            raise too_many_tests(self.max_tests)

    def _suite_end(self, element: etree._Element) -> bool:
        """Close a suite; true when it was the top suite (nothing more to read)."""
        self._drop_previous(element)
        for child in element:
            self._scan_messages(child)
        testbed = _metadata(element, "testbed") or self.early_testbeds.pop(element, None)
        suite = self.suites.pop(element, None)
        if suite is not None:
            if (twins := suite.tell_twins_apart(self.run.tests, self.origin)) is not None:
                self.run.problems.append(twins)
            suite.apply_teardown(element, self.run.tests)
        parent = element.getparent()
        top = parent is None or parent.tag != "suite"
        if testbed and (self.run.testbed is None or top):
            self.run.testbed = testbed
        if top:
            self.run.name = element.get("name") or None
            status = element.find("status")
            self.run.end = status_end(status) if status is not None else None
        element.clear()
        return top


def _metadata(suite: etree._Element, wanted: str) -> str | None:
    for child in suite.iterchildren("meta", "metadata"):
        if found := _metadata_in(child, wanted):
            return found
    return None


def _metadata_in(element: etree._Element, wanted: str) -> str | None:
    """Value of metadata ``wanted`` in a ``<meta>`` (RF 4+) or ``<metadata>`` element."""
    if element.tag == "meta":
        items = [element]
    elif element.tag == "metadata":
        items = list(element.iterchildren("item"))
    else:
        return None
    for item in items:
        if item.get("name", "").lower() == wanted:
            return (item.text or "").strip() or None
    return None


def _version_of(found: re.Match[str]) -> str:
    if "version" in found.re.groupindex:
        return found["version"]
    return found.group(1) if found.re.groups else found.group(0)


def read_robot(
    stream: Readable,
    origin: str,
    *,
    version_pattern: re.Pattern[str],
    want_tg: bool = False,
    values: ValueRule | None = None,
    max_tests: int = DEFAULT_LIMITS.max_tests,
) -> RobotRun:
    """Parse one output.xml stream; bad XML becomes a problem, never an exception.

    Decompression errors of the underlying stream surface here too (the
    parser pulls the bytes), so they are reported against the same origin.
    """
    reader = _Reader(origin, version_pattern, want_tg, values or ValueRule(), max_tests)
    try:
        return reader.read(stream)
    except etree.XMLSyntaxError as error:
        problem = Problem(origin, _syntax_message(error, reader.run), "parse", error.lineno or None)
    except UnsafeXmlError as error:
        problem = Problem(origin, str(error), "parse")
    except TimeRangeError as error:
        problem = Problem(origin, f"{error}; the build time is taken from elsewhere", "data")
    except (OSError, EOFError, zlib.error, lzma.LZMAError) as error:
        problem = Problem(origin, f"cannot read: {error}", "parse")
    reader.run.problems.append(problem)
    return reader.run


def _syntax_message(error: etree.XMLSyntaxError, run: RobotRun) -> str:
    text = f"malformed XML: {error.msg}"
    if run.tests:
        text += f" (kept the {len(run.tests)} tests read before it)"
    return text
