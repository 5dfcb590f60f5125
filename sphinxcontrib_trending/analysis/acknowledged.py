"""Known changes: anomalies a team has looked at and acknowledged.

The list lives in a TOML file kept in version control next to the docs, so
an acknowledgement is reviewed like code and survives a rebuild (unlike a
dashboard's browser storage).  Acknowledged anomalies are still shown, but
marked, left out of the regression counts and not failed by ``check``.

File format, one ``[[change]]`` table per acknowledged anomaly::

    [[change]]
    test = "*-2n1l-25ge2p1xxv710-*-ethip4-ip4base-mrr"
    build = "csit-vpp-perf-mrr-daily-master-2n-icx/123"
    reason = "Expected: new driver"
    link = "https://jira.example.org/browse/CSIT-1234"

``test`` is a shell-style glob over the test id, case-insensitive.  Each
entry names a ``build`` (``"job/build"`` or a bare build id matching any
job), a ``date`` (TOML date: the anomaly's build ran that day), or both
(both must hold).  ``reason`` is required, ``link`` optional.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Protocol

from sphinxcontrib_trending.analysis.classify import Classification

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

TABLE = "change"
_KEYS = frozenset({"test", "build", "date", "reason", "link"})


class KnownChangesError(ValueError):
    """A known-changes file that cannot be read; names the file and entry."""


@dataclass(frozen=True, slots=True)
class KnownChange:
    """One acknowledged anomaly; ``origin`` is ``file:line`` of its entry."""

    test: str
    reason: str
    origin: str
    job: str | None = None
    build: str | None = None
    day: date | None = None
    link: str | None = None

    def matches(
        self, test_id: str, *, job: str | None, build: str | None, time: datetime | None
    ) -> bool:
        """Whether the anomaly of ``test_id`` in that build (at that time) is this one."""
        if not fnmatchcase(test_id.lower(), self.test.lower()):
            return False
        if self.build is not None and (
            build != self.build or (self.job is not None and job != self.job)
        ):
            return False
        return self.day is None or (time is not None and time.date() == self.day)


@dataclass(frozen=True)
class KnownChanges:
    """All entries of one file, first match wins."""

    entries: tuple[KnownChange, ...] = ()

    def find(
        self,
        test_id: str,
        *,
        job: str | None = None,
        build: str | None = None,
        time: datetime | None = None,
    ) -> KnownChange | None:
        """The entry acknowledging this anomaly, or ``None``."""
        for entry in self.entries:
            if entry.matches(test_id, job=job, build=build, time=time):
                return entry
        return None

    def is_acknowledged(
        self,
        test_id: str,
        *,
        job: str | None = None,
        build: str | None = None,
        time: datetime | None = None,
    ) -> bool:
        return self.find(test_id, job=job, build=build, time=time) is not None


class RunMetadata(Protocol):
    """What identifies a run to a known change (:class:`~.test_run.Run` has it)."""

    @property
    def time(self) -> datetime: ...

    @property
    def job(self) -> str: ...

    @property
    def build(self) -> str: ...


def acknowledged_anomalies(
    known: KnownChanges,
    test_id: str,
    runs: Sequence[RunMetadata],
    result: Classification,
) -> dict[int, KnownChange]:
    """The known change behind each acknowledged anomaly of one test's history.

    An anomaly is acknowledged when an entry matches ``test_id`` and the run
    that starts the anomaly's group (its job, build and time).  Keys are
    those runs' indices, the numbering of ``runs`` and ``result``; "maybe"
    anomalies are anomalies too.  Pass the keys to
    :func:`~.compliance.anomaly_counts` to leave them out of the counts.

    Raises:
        ValueError: ``runs`` and ``result`` number the runs differently.
    """
    if len(runs) != result.run_count:
        raise ValueError(f"got {len(runs)} runs for a classification of {result.run_count}")
    found = {}
    for group in result.groups:
        if group.comment == "normal":
            continue
        run = runs[group.start]
        entry = known.find(test_id, job=run.job, build=run.build, time=run.time)
        if entry is not None:
            found[group.start] = entry
    return found


def _entry_lines(text: str) -> list[int]:
    """Line numbers of the ``[[change]]`` headers, to point errors at an entry."""
    header = re.compile(rf"^\s*\[\[\s*{TABLE}\s*\]\]")
    return [number for number, line in enumerate(text.splitlines(), 1) if header.match(line)]


def _optional_string(raw: dict[str, object], key: str, where: str) -> str | None:
    value = raw.get(key)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise KnownChangesError(f"{where}: {key!r} must be a non-empty string, not {value!r}")
    return value


def _required_string(raw: dict[str, object], key: str, where: str) -> str:
    value = _optional_string(raw, key, where)
    if value is None:
        raise KnownChangesError(f"{where}: missing required key {key!r}")
    return value


def _parse_entry(raw: object, where: str) -> KnownChange:
    if not isinstance(raw, dict):
        raise KnownChangesError(f"{where}: an entry must be a table")
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise KnownChangesError(
            f"{where}: unknown key {unknown[0]!r} (allowed: {', '.join(sorted(_KEYS))})"
        )
    test = _required_string(raw, "test", where)
    reason = _required_string(raw, "reason", where)
    build_ref = _optional_string(raw, "build", where)
    link = _optional_string(raw, "link", where)
    day = raw.get("date")
    if day is not None and (not isinstance(day, date) or isinstance(day, datetime)):
        raise KnownChangesError(
            f"{where}: 'date' must be a TOML date such as 2024-03-05 (unquoted), not {day!r}"
        )
    if build_ref is None and day is None:
        raise KnownChangesError(f"{where}: give 'build', 'date' or both")
    job, build = (None, build_ref)
    if build_ref is not None and "/" in build_ref:
        job, build = build_ref.rsplit("/", 1)
    return KnownChange(test, reason, where, job, build, day, link)


def parse_known_changes(text: str, origin: str) -> KnownChanges:
    """Parse the TOML ``text`` of the file named ``origin``."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise KnownChangesError(f"{origin}: invalid TOML: {error}") from None
    unknown = sorted(set(document) - {TABLE})
    if unknown:
        raise KnownChangesError(
            f"{origin}: unknown top-level key {unknown[0]!r}; entries are [[{TABLE}]] tables"
        )
    raw_entries = document.get(TABLE, [])
    if not isinstance(raw_entries, list):
        raise KnownChangesError(f"{origin}: {TABLE!r} must be an array of tables [[{TABLE}]]")
    lines = _entry_lines(text)
    entries: list[KnownChange] = []
    for index, raw in enumerate(raw_entries):
        line = f":{lines[index]}" if len(lines) == len(raw_entries) else ""
        entries.append(_parse_entry(raw, f"{origin}{line} (entry {index + 1})"))
    return KnownChanges(tuple(entries))


def load_known_changes(path: str | Path) -> KnownChanges:
    """Read the known-changes file at ``path``; a missing file is an error too.

    Raises :class:`KnownChangesError` naming the file (and the entry's line)
    on unreadable or invalid content.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise KnownChangesError(f"{path}: cannot read known changes: {error}") from None
    return parse_known_changes(text, str(path))
