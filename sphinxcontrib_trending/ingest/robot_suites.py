"""What a Robot Framework suite does to the tests below it, when it ends.

Two rules of Robot Framework's result model are not written into
``output.xml`` by the run (tests are written as they finish, before the
suite's teardown runs), so the reader applies them itself, as RF does when
it reads a result:

* a failed suite teardown fails every test below the suite (a skipped one
  skips them), with RF's wording; such a test keeps no measurement;
* tests of one suite may share a name; each keeps a history of its own under
  its part of RF's test id (``t3`` of ``s1-s2-t3``), and the suite is named
  in one problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from lxml import etree

from sphinxcontrib_trending.ingest.model import Problem, TestResult


@dataclass
class OpenSuite:
    """A suite being read: its long name, the test-id prefix derived from it
    once, where its tests start in the run's test list (they are contiguous,
    nested suites' included) and its own tests' places, by test id."""

    long_name: str
    id_prefix: str
    first_test: int
    seats: dict[str, list[tuple[int, str]]] = field(default_factory=dict)

    def seat(self, test: etree._Element, test_id: str, position: int) -> None:
        """Remember a test of this very suite (``position`` in the run's list)."""
        self.seats.setdefault(test_id, []).append((position, self._local_id(test)))

    def _local_id(self, test: etree._Element) -> str:
        """The test's own part of its RF id: its place in the suite, so it stays
        the same from build to build while the suite's tests do."""
        local = test.get("id", "").rpartition("-")[2]
        if local[:1] == "t" and local[1:].isdigit():
            return local
        return f"t{sum(map(len, self.seats.values())) + 1}"

    def tell_twins_apart(self, tests: list[TestResult], origin: str) -> Problem | None:
        """Give tests sharing a name their local RF id; the problem names them."""
        clashes = [seats for seats in self.seats.values() if len(seats) > 1]
        if not clashes:
            return None
        described = []
        for seats in clashes:
            locals_ = ", ".join(local for _, local in seats)
            described.append(f"{tests[seats[0][0]].name!r} ({locals_})")
            for position, local in seats:
                test = tests[position]
                tests[position] = replace(
                    test, test_id=f"{test.test_id}#{local}", name=f"{test.name} #{local}"
                )
        return Problem(
            origin,
            f"suite {self.long_name} has tests of the same name: {'; '.join(described)}; "
            "each is trended apart under its Robot Framework test id",
            "data",
        )

    def apply_teardown(self, suite: etree._Element, tests: list[TestResult]) -> None:
        """Fail (skip) the tests below when the suite's teardown failed (skipped)."""
        teardown = next(
            (kw for kw in suite.iterchildren("kw") if kw.get("type", "").lower() == "teardown"),
            None,
        )
        status = None if teardown is None else teardown.find("status")
        if teardown is None or status is None or status.get("status") not in ("FAIL", "SKIP"):
            return
        reason = _keyword_message(teardown, status)
        skipped = status.get("status") == "SKIP"
        for position in range(self.first_test, len(tests)):
            tests[position] = _after_teardown(tests[position], reason, skipped)


def _after_teardown(test: TestResult, reason: str, skipped: bool) -> TestResult:
    """The test as Robot Framework reports it once its suite's teardown failed or skipped."""
    if skipped:
        message = f"Skipped in parent suite teardown:\n{reason}"
        if test.message:
            message += f"\n\nEarlier message:\n{test.message}"
        return replace(test, status="SKIP", message=message, measurements=())
    if test.message:
        message = f"{test.message}\n\nAlso parent suite teardown failed:\n{reason}"
    else:
        message = f"Parent suite teardown failed:\n{reason}"
    status = test.status if test.status == "SKIP" else "FAIL"
    return replace(test, status=status, message=message, measurements=())


def _keyword_message(keyword: etree._Element, status: etree._Element) -> str:
    """A keyword's failure message: its status text (RF 4+), else its last FAIL message."""
    if status.text:
        return status.text
    failures = [msg.text or "" for msg in keyword.iter("msg") if msg.get("level") == "FAIL"]
    return failures[-1] if failures else ""
