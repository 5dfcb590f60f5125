"""Identical failures across NICs, frame sizes and cores, folded into one.

When a traffic generator is down, every frame size and core count of a test
fails with the same message; an alert listing each of them buries the one
problem under a screenful of lines.  As the reference's alerts did, failures
of one testbed whose test names differ only in those dimensions, and whose
messages are equal once masked (:func:`.failures.failure_key`), fold into one entry that
lists the dimension values and counts the tests.

The dimensions come from a function of the history, so a richer derivation
(one that knows the suite's NIC and driver) can replace :func:`name_dimensions`,
the small local rule, without changing the folding.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sphinxcontrib_trending.analysis.failures import failure_key
from sphinxcontrib_trending.analysis.history import TestHistory
from sphinxcontrib_trending.analysis.verdicts import Verdict

FOLDED_DIMENSIONS = ("nic", "frame_size", "cores")
"""The dimensions a folded entry may span, in the order it lists them."""

_TOKEN_RULES = {
    "nic": re.compile(r"\d+ge\d+p\d+[a-z0-9]+"),
    "frame_size": re.compile(r"\d+b|imix"),
    "cores": re.compile(r"\d+t\d+c|\d+c"),
}
"""CSIT name tokens: ``10ge2p1x710``, ``64b``/``imix``, ``2t1c``/``4c``."""

Dimensions = Mapping[str, str | None]
DimensionsOf = Callable[[TestHistory], Dimensions]


def _tokens(text: str) -> list[str]:
    return text.lower().split("-")


def name_dimensions(history: TestHistory) -> Dimensions:
    """NIC, frame size and cores read from the test name's tokens (the NIC also
    from the suite's, where CSIT names it); None where there is no such token."""
    suite_tokens = _tokens(history.suite.rpartition(".")[2])
    found: dict[str, str | None] = {}
    for dimension, rule in _TOKEN_RULES.items():
        candidates = _tokens(history.name) + (suite_tokens if dimension == "nic" else [])
        found[dimension] = next((token for token in candidates if rule.fullmatch(token)), None)
    return found


def base_name(history: TestHistory, dimensions: Dimensions) -> str:
    """The test name without the tokens that hold one of its folded dimensions."""
    values = {value.lower() for value in dimensions.values() if value}
    return "-".join(token for token in history.name.split("-") if token.lower() not in values)


@dataclass(frozen=True)
class FoldedFailure:
    """Failed tests of one testbed that differ only in folded dimensions."""

    name: str
    """The shared name: the test's own when one test failed, else the base name."""
    message: str
    """The message key the tests share (see :func:`.failures.failure_key`)."""
    verdicts: tuple[Verdict, ...]
    spans: tuple[tuple[str, tuple[str, ...]], ...]
    """Each folded dimension with the values the tests have, when there is one."""

    @property
    def count(self) -> int:
        return len(self.verdicts)


def fold_failures(
    verdicts: Sequence[Verdict], dimensions_of: DimensionsOf = name_dimensions
) -> list[FoldedFailure]:
    """Fold failed verdicts; entries keep the order of their first verdict."""
    groups: dict[tuple[str, str, str], list[tuple[Verdict, Dimensions]]] = {}
    for verdict in verdicts:
        dimensions = dimensions_of(verdict.history)
        key = (
            verdict.history.testbed or "",
            base_name(verdict.history, dimensions),
            failure_key(verdict.message),
        )
        groups.setdefault(key, []).append((verdict, dimensions))
    folded = []
    for (_, base, message), members in groups.items():
        spans = []
        for dimension in FOLDED_DIMENSIONS:
            values = sorted({value for _, dims in members if (value := dims.get(dimension))})
            if values:
                spans.append((dimension, tuple(values)))
        name = members[0][0].history.name if len(members) == 1 else base
        folded.append(FoldedFailure(name, message, tuple(v for v, _ in members), tuple(spans)))
    return folded
