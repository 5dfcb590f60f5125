"""Incidents: the anomalies of many series that one build or DUT version started.

A change in the device under test moves every test that exercises it: one
bad commit shows as forty regressions, one per NIC, frame size and core
count, and a list of forty lines hides that it is one thing to look at.
Anomalies (regressions, progressions, new failures) whose first bad run is
the same CI build, or ran the same DUT version, are therefore one
:class:`Incident`, linked transitively: a regression at build 7 of job A
and one at version 1.2 of job B join when build 7 of job A ran version 1.2.
Kinds stay apart (the progressions a version brings are a separate
incident from its regressions): a team acts on them differently.

Each incident says what its members share (testbed, NIC, driver, frame
size, cores, test type: the :data:`~.dimensions.DIMENSIONS`), where the
change happened (the last good and first bad run) and how far it spread
(the smallest, median and largest relative change).  Pure analysis: no
Sphinx, no settings.
"""

from __future__ import annotations

import statistics
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Literal

from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.test_run import Run
from sphinxcontrib_trending.ingest.dimensions import DIMENSIONS

Kind = Literal["regression", "progression", "failure"]

KIND_ORDER: dict[str, int] = {"regression": 0, "failure": 1, "progression": 2}
"""Most urgent first, where two incidents started at the same moment."""


@dataclass(frozen=True)
class Anomaly:
    """One series' change: its kind, and where it started in its history."""

    source: str
    kind: Kind
    history: TestHistory
    first_bad: int
    """Index in ``history.runs`` of the run the change starts at."""
    relative_change: float | None = None
    """``(new trend - old trend) / |old trend|``; None for a failure."""
    provisional: bool = False
    last_good_run: Run | None = None
    """The run before the change, as the news and the gate name it
    (:mod:`~.change_range`), so an incident and its members' lines agree;
    None when nothing came before."""

    @property
    def first_bad_run(self) -> Run:
        return self.history.runs[self.first_bad]


@dataclass(frozen=True)
class Spread:
    """How far the change went across an incident's members that measured one."""

    count: int
    minimum: float
    median: float
    maximum: float


@dataclass(frozen=True)
class Incident:
    """Anomalies of one kind started by one build or DUT version (see the module)."""

    kind: Kind
    members: tuple[Anomaly, ...]
    """Largest change first, then by test name."""

    @property
    def witness(self) -> Anomaly:
        """The member whose change came first: its runs name the incident's bounds."""
        return min(self.members, key=lambda member: member.first_bad_run.time)

    @property
    def first_bad(self) -> Run:
        return self.witness.first_bad_run

    @property
    def last_good(self) -> Run | None:
        return self.witness.last_good_run

    @property
    def provisional(self) -> bool:
        """Every member is too recent to be sure of."""
        return all(member.provisional for member in self.members)

    @property
    def shared(self) -> dict[str, str]:
        """Each dimension every member has, with the same value."""
        found: dict[str, str] = {}
        for dimension in DIMENSIONS:
            values = {_dimension(member.history, dimension) for member in self.members}
            value = values.pop() if len(values) == 1 else None
            if value is not None:
                found[dimension] = value
        return found

    @property
    def spread(self) -> Spread | None:
        """The members' relative changes; None when none measured one (failures)."""
        changes = sorted(
            member.relative_change for member in self.members if member.relative_change is not None
        )
        if not changes:
            return None
        return Spread(len(changes), changes[0], statistics.median(changes), changes[-1])


def _dimension(history: TestHistory, dimension: str) -> str | None:
    """The history's own testbed stands in where the rules derive none."""
    value = history.dimensions.value(dimension)
    return history.testbed if value is None and dimension == "testbed" else value


def _member_order(member: Anomaly) -> tuple[float, str, str]:
    change = member.relative_change
    size = -abs(change) if change is not None else float("inf")
    return (size, member.history.display_name, member.history.testbed or "")


def _incident_order(incident: Incident) -> tuple[float, int, int, str]:
    return (
        -incident.first_bad.time.timestamp(),
        -len(incident.members),
        KIND_ORDER[incident.kind],
        incident.members[0].history.display_name,
    )


class _Links:
    """Union-find over anomaly positions: shared keys join their anomalies."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def root(self, item: int) -> int:
        while self.parent[item] != item:
            self.parent[item] = self.parent[self.parent[item]]
            item = self.parent[item]
        return item

    def join(self, first: int, second: int) -> None:
        self.parent[self.root(first)] = self.root(second)


def _keys(anomaly: Anomaly) -> Iterable[Hashable]:
    run = anomaly.first_bad_run
    yield (anomaly.kind, "build", run.job, run.build)
    if run.dut_version:
        yield (anomaly.kind, "version", run.dut_version)


def incidents(anomalies: Iterable[Anomaly]) -> list[Incident]:
    """The anomalies as incidents: newest first, then the larger, then the more urgent."""
    items = list(anomalies)
    links = _Links(len(items))
    first_with: dict[Hashable, int] = {}
    for position, anomaly in enumerate(items):
        for key in _keys(anomaly):
            if key in first_with:
                links.join(position, first_with[key])
            else:
                first_with[key] = position
    grouped: dict[int, list[Anomaly]] = {}
    for position, anomaly in enumerate(items):
        grouped.setdefault(links.root(position), []).append(anomaly)
    found = [
        Incident(members[0].kind, tuple(sorted(members, key=_member_order)))
        for members in grouped.values()
    ]
    return sorted(found, key=_incident_order)
