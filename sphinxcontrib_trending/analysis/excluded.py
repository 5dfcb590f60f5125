"""Curated runs: named runs kept out of every grouping, each with its reason.

A run measured on a misconfigured testbed, or with a broken build, is not
performance: left in, it opens a group of its own and reports a regression
and a progression that never happened.  Deleting it from the archives loses
the record; so it is named in a TOML file kept in version control beside the
docs (like the known changes, :mod:`.acknowledged`), where the exclusion is
reviewed like code.  An excluded run is still shown (greyed, with the
reason), but the grouping sees it as a run without a value.

File format, one ``[[run]]`` table per exclusion::

    [[run]]
    test = "*-2n1l-25ge2p1xxv710-*-ethip4-ip4base-mrr"
    build = "csit-vpp-perf-mrr-daily-master-2n-icx/123"
    reason = "Testbed rebooted during the run"

``test`` is a shell-style glob over the test id (case-insensitive; default
every test), ``source`` the name of one source (default every source); at
least one of the two is given.  ``build`` (``"job/build"``, or a bare build
id of any job) or ``version`` (the DUT version, a glob) names the runs, or
both (both must hold).  ``reason`` is required.

A bad entry is left out with a warning naming the file and its line, and
the rest is read: one typo must not bring back every excluded run.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Protocol

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

TABLE = "run"
_KEYS = ("test", "source", "build", "version", "reason")


class ExclusionsError(ValueError):
    """An exclusions file that cannot be read at all; names the file."""


class RunIdentity(Protocol):
    """What names a run to an exclusion (:class:`~.test_run.Run` has it)."""

    @property
    def job(self) -> str: ...

    @property
    def build(self) -> str: ...

    @property
    def dut_version(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class ExcludedRun:
    """One entry; ``origin`` is ``file:line`` of its table."""

    reason: str
    origin: str
    test: str = "*"
    source: str | None = None
    job: str | None = None
    build: str | None = None
    version: str | None = None

    def covers_test(self, test_id: str) -> bool:
        return fnmatchcase(test_id.lower(), self.test.lower())

    def covers_run(self, run: RunIdentity) -> bool:
        """Whether ``run`` (of a test this entry covers) is excluded."""
        if self.build is not None and (
            run.build != self.build or (self.job is not None and run.job != self.job)
        ):
            return False
        return self.version is None or (
            run.dut_version is not None and fnmatchcase(run.dut_version, self.version)
        )

    @property
    def key(self) -> tuple[str | None, ...]:
        """What decides which runs it excludes: what a grouping's cache key holds."""
        return (self.test.lower(), self.source, self.job, self.build, self.version)


@dataclass(frozen=True)
class Exclusions:
    """The entries of one file (or those of it that concern one source).

    ``warnings`` are the located messages about entries that were left out;
    they are not part of what a grouping depends on.
    """

    entries: tuple[ExcludedRun, ...] = ()
    warnings: tuple[str, ...] = field(default=(), compare=False)

    def __bool__(self) -> bool:
        return bool(self.entries)

    def for_source(self, name: str) -> Exclusions:
        """The entries that concern the source ``name``: what its groupings depend on."""
        return Exclusions(
            tuple(entry for entry in self.entries if entry.source in (None, name)),
            self.warnings,
        )

    def key(self) -> list[list[str | None]]:
        """The entries as a grouping's cache key serialises them (reasons left out)."""
        return [list(entry.key) for entry in self.entries]

    def in_history(self, test_id: str, runs: Sequence[RunIdentity]) -> dict[int, ExcludedRun]:
        """The excluded runs of one test's history, by index, with their entries.

        The test is matched once, then each run against the few entries left:
        a site asks this of every history.
        """
        if not self.entries:
            return {}
        entries = [entry for entry in self.entries if entry.covers_test(test_id)]
        if not entries:
            return {}
        found = {}
        for index, run in enumerate(runs):
            entry = next((entry for entry in entries if entry.covers_run(run)), None)
            if entry is not None:
                found[index] = entry
        return found


NO_EXCLUSIONS = Exclusions()


def _header_lines(text: str) -> list[int]:
    """Line numbers of the ``[[run]]`` headers, to point warnings at an entry."""
    header = re.compile(rf"^\s*\[\[\s*{TABLE}\s*\]\]")
    return [number for number, line in enumerate(text.splitlines(), 1) if header.match(line)]


class _BadEntry(ValueError):
    pass


def _text(raw: dict[str, object], key: str) -> str | None:
    value = raw.get(key)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise _BadEntry(f"{key!r} must be a non-empty string, not {value!r}")
    return value


def _entry(raw: object, origin: str) -> ExcludedRun:
    if not isinstance(raw, dict):
        raise _BadEntry("an entry must be a table")
    unknown = sorted(set(raw) - set(_KEYS))
    if unknown:
        raise _BadEntry(f"unknown key {unknown[0]!r} (allowed: {', '.join(_KEYS)})")
    test, source, build_ref, version, reason = (_text(raw, key) for key in _KEYS)
    if reason is None:
        raise _BadEntry("missing required key 'reason'")
    if test is None and source is None:
        raise _BadEntry("give 'test', 'source' or both: which series the runs belong to")
    if build_ref is None and version is None:
        raise _BadEntry("give 'build', 'version' or both: which runs to exclude")
    job, build = (None, build_ref)
    if build_ref is not None and "/" in build_ref:
        job, build = build_ref.rsplit("/", 1)
    return ExcludedRun(reason, origin, test or "*", source, job, build, version)


def parse_exclusions(text: str, origin: str) -> Exclusions:
    """The usable entries of the TOML ``text`` of the file named ``origin``.

    Raises :class:`ExclusionsError` only when the file as a whole is not
    TOML or not a list of ``[[run]]`` tables; a bad entry becomes a warning.
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ExclusionsError(f"{origin}: invalid TOML: {error}") from None
    warnings = [
        f"{origin}: unknown top-level key {key!r} ignored; entries are [[{TABLE}]] tables"
        for key in sorted(set(document) - {TABLE})
    ]
    raw_entries = document.get(TABLE, [])
    if not isinstance(raw_entries, list):
        raise ExclusionsError(f"{origin}: {TABLE!r} must be an array of tables [[{TABLE}]]")
    lines = _header_lines(text)
    entries = []
    for number, raw in enumerate(raw_entries):
        where = f"{origin}:{lines[number]}" if len(lines) == len(raw_entries) else origin
        try:
            entries.append(_entry(raw, where))
        except _BadEntry as error:
            warnings.append(f"{where}: excluded run {number + 1} ignored: {error}")
    return Exclusions(tuple(entries), tuple(warnings))


def load_exclusions(path: str | Path) -> Exclusions:
    """Read the exclusions file at ``path``; a missing file is an error too."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ExclusionsError(f"{path}: cannot read excluded runs: {error}") from None
    return parse_exclusions(text, str(path))
