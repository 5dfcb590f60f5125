"""Caps on what one input may cost: bytes after decompression, tests, message length.

A 131 KB ``.xz`` can hold a 900 MB message and a 906 KB ``.gz`` 300,000
tests; read naively they cost gigabytes of memory, cache and report files.
Every cap is meant to sit far above what a CI archive needs, and each is
configurable per source.  Over a byte or test cap the document is
refused with a problem naming it, and the rest of the build goes on; an
over-long message keeps its head and tail and says how much was cut.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field, fields, replace
from typing import Any

from sphinxcontrib_trending.ingest.model import Build, Problem
from sphinxcontrib_trending.ingest.replay import Readable

MiB = 1024 * 1024


class LimitExceeded(Exception):
    """An input went over one of its :class:`ReadLimits`; it is refused, not read on."""


@dataclass(frozen=True)
class ReadLimits:
    """The caps of one source; ``trending_sources[...]['limits']`` overrides any of them."""

    max_expanded_bytes: int = 1024 * MiB
    """Bytes one input (file, URL or whole archive) may expand to, its HDR histograms too."""
    max_tests: int = 100_000
    """Test results one build may hold (one output.xml, one build of a table, or the
    CSIT JSON documents of one build, in one archive or in separate files)."""
    max_message_chars: int = 65_536
    """Characters of one test message that are stored; the middle of a longer one is cut."""
    max_telemetry_bytes: int = 16 * MiB
    """Bytes one test's telemetry text (CSIT) may take decompressed; a larger one is left out."""
    max_telemetry_series: int = 20_000
    """Telemetry series (sample name and label set) one test may hold; the rest are left out."""
    max_download_bytes: int = 2048 * MiB
    """Bytes one URL download may hold, after any Content-Encoding is undone."""
    download_seconds: float = 120.0
    """Total time one URL download may take, however slowly the server sends."""
    download_idle_seconds: float = 30.0
    """Longest wait for a connection, or for the next bytes of an answer, from a server."""

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> ReadLimits:
        """Limits from a conf.py dict or ``NAME=VALUE`` options; ValueError names a bad one."""
        known = [option.name for option in fields(cls)]
        values: dict[str, Any] = {}
        for name, value in raw.items():
            if name not in known:
                raise ValueError(f"unknown limit {name!r}; known: {', '.join(known)}")
            values[name] = _number(name, value, integer=not name.endswith("_seconds"))
        return replace(cls(), **values)

    def identity(self) -> dict[str, float]:
        """The caps that shape what a parse gives: part of each stored input's identity.

        How long or how much a download may take decides only whether the
        bytes arrive, not what they parse to; raising those caps for a slow
        server must not parse (and store) every input again under a new identity.
        """
        return {
            option.name: getattr(self, option.name)
            for option in fields(self)
            if option.name not in _DOWNLOAD_ONLY
        }


_DOWNLOAD_ONLY = frozenset({"max_download_bytes", "download_seconds", "download_idle_seconds"})


DEFAULT_LIMITS = ReadLimits()


def _number(name: str, value: Any, *, integer: bool) -> float:
    try:
        number = int(value) if integer else float(value)
    except (TypeError, ValueError):
        raise ValueError(f"limit {name!r} must be a positive number, got {value!r}") from None
    if isinstance(value, bool) or not number > 0 or (integer and float(value) != number):
        raise ValueError(f"limit {name!r} must be a positive number, got {value!r}")
    return number


@dataclass
class Budget:
    """Bytes still allowed for one input, shared by all its layers and members.

    ``damaged`` collects checksum failures found at the end of a compressed
    stream: everything was read by then, so the data is kept and reported.
    """

    limit: int
    used: int = 0
    damaged: list[str] = field(default_factory=list)

    def spend(self, size: int) -> None:
        self.used += size
        if self.used > self.limit:
            raise LimitExceeded(
                f"expands beyond max_expanded_bytes ({self.limit:,} bytes): refused; "
                "raise the source's limit to read it"
            )


_CHARGED: ContextVar[Budget | None] = ContextVar("charged_budget", default=None)


@contextlib.contextmanager
def charging(budget: Budget) -> Iterator[None]:
    """Makes ``budget`` the one :func:`charged_budget` returns while an input is parsed.

    Expansion can happen deep inside a parser (an HDR histogram in a test
    message is compressed too); this way it is charged to the input it came
    from without every parsing layer passing the budget along.
    """
    token = _CHARGED.set(budget)
    try:
        yield
    finally:
        _CHARGED.reset(token)


def charged_budget() -> Budget:
    """The budget of the input being parsed; outside :func:`charging`, a fresh default one."""
    return _CHARGED.get() or Budget(DEFAULT_LIMITS.max_expanded_bytes)


class Counted:
    """A stream whose bytes are charged to a :class:`Budget` as they are read."""

    def __init__(self, raw: Readable, budget: Budget) -> None:
        self._raw = raw
        self._budget = budget

    def read(self, size: int = -1, /) -> bytes:
        if size is None or size < 0:
            return b"".join(iter(lambda: self.read(MiB), b""))
        data = self._raw.read(size)
        self._budget.spend(len(data))
        return data


def too_many_tests(limit: int) -> LimitExceeded:
    return LimitExceeded(
        f"holds more than max_tests ({limit:,}) tests: refused; raise the source's limit to read it"
    )


class BuildSizes:
    """Tests per build so far, across documents (one test each in CSIT JSON) or files.

    The loader asks after every document, so an archive of 300,000 one-test
    documents is refused once a build passes the cap, not after all are
    parsed; and after every file, so a folder of them stops there too.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._counts: dict[tuple[str, str], int] = {}

    def over(self, builds: list[Build]) -> Build | None:
        """Count ``builds``' tests; the first build whose total passed the cap, if any."""
        return next((build for build in builds if self.passes(build.key, len(build.tests))), None)

    def passes(self, key: tuple[str, str], tests: int) -> bool:
        """Count ``tests`` more of build ``key``: has its total passed the cap?"""
        count = self._counts[key] = self._counts.get(key, 0) + tests
        return count > self.limit


class PartsCap:
    """The test cap over builds that come in parts (a store's files, an input at a time).

    Each part's tests are counted as it arrives: a build whose total passes
    the cap is refused naming the part that passed it, its later parts are
    dropped as they come and those before by :meth:`kept`, so a store that
    holds a build of 300,000 tests never holds more than the cap of it.
    """

    def __init__(self, limit: int) -> None:
        self.refusals: list[Problem] = []
        self._sizes = BuildSizes(limit)
        self._refused: set[tuple[str, str]] = set()

    def take(self, builds: list[Build], where: str) -> list[Build]:
        """The parts of ``builds`` still within the cap; ``where`` names the part read."""
        kept = []
        for build in builds:
            if build.key in self._refused:
                continue
            if self._sizes.passes(build.key, len(build.tests)):
                self._refused.add(build.key)
                refusal = too_many_tests(self._sizes.limit)
                message = f"build {build.job}/{build.build} {refusal}"
                self.refusals.append(Problem(where, message, "data"))
                continue
            kept.append(build)
        return kept

    def kept(self, builds: list[Build]) -> list[Build]:
        """``builds`` without the parts of refused builds that came before their refusal."""
        return [build for build in builds if build.key not in self._refused]


def clip(text: str, limit: int) -> str:
    """Head and tail of ``text`` within ``limit`` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    keep = limit // 2
    cut = len(text) - 2 * keep
    return f"{text[:keep]}\n[... {cut:,} characters cut (max_message_chars) ...]\n{text[-keep:]}"


def enforce(
    builds: list[Build], limits: ReadLimits, origin: str, problems: list[Problem]
) -> list[Build]:
    """Builds within the test cap, their messages clipped; one problem per kind of cut."""
    kept = []
    clipped = 0
    for build in builds:
        if len(build.tests) > limits.max_tests:
            where = f"build {build.job}/{build.build}"
            problems.append(
                Problem(build.origin, f"{where} {too_many_tests(limits.max_tests)}", "data")
            )
            continue
        long = [test for test in build.tests if len(test.message) > limits.max_message_chars]
        if not long:
            kept.append(build)
            continue
        clipped += len(long)
        tests = tuple(
            replace(test, message=clip(test.message, limits.max_message_chars))
            if len(test.message) > limits.max_message_chars
            else test
            for test in build.tests
        )
        kept.append(replace(build, tests=tests))
    if clipped:
        problems.append(
            Problem(
                origin,
                f"{clipped} test message(s) longer than max_message_chars "
                f"({limits.max_message_chars:,}) were cut to their head and tail",
                "data",
            )
        )
    return kept
