"""What a run ran on, beyond the software under test: its environment.

A change of performance that starts where the testbed's hosts, the traffic
generator or the DUT type changed is most likely the machine's doing, not
the code's.  So every run carries its environment as one short text
(``name=value`` lines, sorted by name), kept from the test's attributes:

- the attributes formats record (:data:`ENVIRONMENT_ATTRIBUTES`: CSIT's
  ``dut_type``, ``tg_type`` and ``tg_version``, or a ``nic`` and ``driver``
  a CSV or JSON Lines source carries as columns); the testbed's hosts travel
  apart, in :attr:`~.test_run.Run.hosts`;
- the build pattern's named groups other than ``job`` and ``build``, kept
  as attributes named ``build.<group>`` (:func:`with_pattern_fields`), so a
  pattern like ``(?P<job>[^_]+)__(?P<build>\\d+)__(?P<host>s\\d+)`` records
  the host the archive's name gives.

One text per run rather than a mapping: a site makes millions of runs, and
the text of one testbed's builds is the same, made once and shared.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import replace

from sphinxcontrib_trending.ingest.model import Build

ENVIRONMENT_ATTRIBUTES = frozenset({"dut_type", "tg_type", "tg_version", "nic", "driver"})
"""Test attributes that describe the machine, not the code under test."""

PATTERN_PREFIX = "build."
"""How the build pattern's own named groups are named among a test's attributes."""

_OWN_GROUPS = frozenset({"job", "build"})


def is_environment(name: str) -> bool:
    """Whether the attribute ``name`` is part of a run's environment."""
    return name in ENVIRONMENT_ATTRIBUTES or name.startswith(PATTERN_PREFIX)


def environment_text(attributes: Iterable[tuple[str, str]]) -> str:
    """A test's environment as its run keeps it: ``name=value`` lines in the
    attributes' order (a test keeps them sorted by name), as a store read joins them."""
    lines = [f"{name}={value}" for name, value in attributes if is_environment(name)]
    return sys.intern("\n".join(lines)) if lines else ""


def parse_environment(text: str) -> dict[str, str]:
    """:func:`environment_text` read back, for saying what changed."""
    found = {}
    for line in text.splitlines():
        name, _, value = line.partition("=")
        found[name] = value
    return found


def pattern_fields(pattern: re.Pattern[str], names: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """The build pattern's own named groups in the first name it matches, as attributes."""
    extra = set(pattern.groupindex) - _OWN_GROUPS
    if not extra:
        return ()
    for name in names:
        found = pattern.search(name)
        if found:
            return tuple(
                (f"{PATTERN_PREFIX}{group}", value)
                for group, value in sorted(found.groupdict().items())
                if group in extra and value
            )
    return ()


def with_pattern_fields(
    builds: list[Build], pattern: re.Pattern[str], names: Sequence[str]
) -> list[Build]:
    """``builds`` with the build pattern's own fields added to every test's attributes."""
    fields = pattern_fields(pattern, names)
    if not fields:
        return builds
    return [
        replace(
            build,
            tests=tuple(
                replace(test, attributes=tuple(sorted({*test.attributes, *fields})))
                for test in build.tests
            ),
        )
        for build in builds
    ]
