"""Test dimensions: testbed, NIC, driver, frame size, cores and test type.

CSIT names a test by what it measured on which hardware
(``tests.vpp.perf.ip4.2n1l-100ge2p1e810cq-avf-ethip4-ip4base-mrr.
64b-2t1c-avf-ethip4-ip4base-mrr``); its tags say it again (``NIC_Intel-E810CQ``,
``DRV_AVF``, ``64B``, ``2T1C``, ``MRR``).  Two tests that differ only by NIC
share a case name, so tables, graphs and exports need these dimensions to tell
them apart, and directives need them to group and filter by.

The built-in rules give what csit-dash, the reference's dashboard, derives
from a CSIT test (its ``trending/layout.py`` and ``utils.get_drv_name``): the
NIC is the suite's first part, the driver the one the case names, else the
vfio-pci plugin (``octeon`` on an Octeon testbed, ``dpdk`` elsewhere), the
frame size and cores the case name's first two parts.  Tags and generic
tokens stand in where a name is not CSIT's.  A source may replace any rule
with a regular expression or a tag prefix (:class:`DimensionRules`).
Everything here is pure: no Sphinx, no settings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple, Protocol

from sphinxcontrib_trending.ingest.results import thread_core

DIMENSIONS = ("testbed", "nic", "driver", "frame_size", "cores", "test_type")
"""Every dimension, in the order a display name lists them."""

TAG_RULE_PREFIX = "tag:"
"""A rule ``tag:DRV_`` takes the rest of the first tag starting with ``DRV_``."""


@dataclass(frozen=True, slots=True)
class Dimensions:
    """What one test measured on which hardware; None where nothing says."""

    testbed: str | None = None
    nic: str | None = None
    driver: str | None = None
    frame_size: str | None = None
    cores: str | None = None
    test_type: str | None = None

    def value(self, dimension: str) -> str | None:
        return getattr(self, dimension)

    def labels(self) -> tuple[str, ...]:
        """``nic=10ge2p1x710``-style labels that ``:filter:`` patterns match."""
        # read field by field: astuple deep-copies, and graph pages and filters
        # ask for the labels of thousands of series
        return tuple(
            f"{name}={value}" for name in DIMENSIONS if (value := getattr(self, name)) is not None
        )


NO_DIMENSIONS = Dimensions()


class NamedTest(Protocol):
    """A test as the rules see it: a :class:`~.model.TestResult`, or a history's newest
    test read from a store (:class:`~.model.TestHead`), which never made the rest."""

    @property
    def test_id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def tags(self) -> tuple[str, ...]: ...

    def attribute(self, name: str) -> str | None: ...


class RuleInput(NamedTuple):
    """Everything a rule reads of a test, and nothing else: rules are given this,
    not the test, so what they derive is a function of these fields and the
    testbed, and :class:`DimensionMemo` may file it under them."""

    test_id: str
    name: str
    tags: tuple[str, ...]
    test_type: str | None
    """The ``test_type`` attribute, if the test has one."""

    @classmethod
    def of(cls, test: NamedTest) -> RuleInput:
        return cls(test.test_id, test.name, test.tags, test.attribute("test_type"))


def _bounded(body: str) -> re.Pattern[str]:
    """``body`` as a whole token: not glued to letters or digits either side."""
    return re.compile(rf"(?<![a-z0-9])(?:{body})(?![a-z0-9])", re.IGNORECASE)


_NIC = _bounded(r"\d+ge\d+p\d+[a-z]+\d*[a-z]*")
"""``10ge2p1x710``, ``100ge2p1e810cq``, ``25ge2p1xxv710``, ``100ge2p1cx556a``."""
_DRIVER = _bounded(r"avf|af[-_]xdp|rdma|mlx5|octeon")
"""Drivers CSIT writes into case names; ``dpdk`` (vfio-pci) is the unnamed default."""
_DRIVER_TAGS = {
    "drv_avf": "avf",
    "drv_af_xdp": "af-xdp",
    "drv_rdma_core": "rdma",
    "drv_mlx5_core": "mlx5",
    "drv_vfio_pci": "dpdk",
}
_FRAME = _bounded(r"\d+k?b|imix")
"""``64b``, ``9000b``, ``imix``, and GSO's ``128kb`` (a TCP segment, not a frame)."""
_FRAME_TAG = re.compile(r"\d+k?b|imix(?:_.*)?", re.IGNORECASE)
_CORES = _bounded(r"\d+t\d+c|\d+c")
_CSIT_CASE = re.compile(
    r"(?<![a-z0-9])(?:\d+k?b|imix)[-\s](?P<cores>\d+t\d+c|\d+c|)[-\s]", re.IGNORECASE
)
"""A CSIT case name's frame size and cores slots: ``64b-2c-``, TRex's empty ``64b--``,
and the same in a display name (``64b 2c``), so naming one again changes nothing."""
_TG_CORES = "8C"
"""What csit-dash lists as the cores of a case whose cores slot is empty (TRex's)."""
_TEST_TYPE_TAGS = ("mrr", "ndrpdr", "soak", "reconf", "hoststack", "device", "gso")
_TEST_TYPE_SUFFIXES = {
    **{kind: kind for kind in _TEST_TYPE_TAGS},
    "ndrdisc": "ndrdisc",
    "pdrdisc": "pdrdisc",
    "bps": "hoststack",
    "cps": "hoststack",
    "rps": "hoststack",
}
"""The case name's last token: host-stack cases end in what they count."""


def _first(pattern: re.Pattern[str], text: str) -> str | None:
    found = pattern.search(text)
    return found.group(0).lower() if found else None


def _nic(test: RuleInput, testbed: str | None) -> str | None:
    found = _first(_NIC, test.test_id) or _first(_NIC, test.name)
    if found:
        return found
    return next((tag[4:].lower() for tag in test.tags if tag.lower().startswith("nic_")), None)


def _vfio_plugin(testbed: str | None) -> str:
    """The driver a vfio-pci test is shown with: the Octeon plugin on an Octeon
    testbed (architecture ``oct``, as csit-dash's ``3n-oct``), DPDK elsewhere."""
    return "octeon" if testbed and testbed.rpartition("-")[2].lower() == "oct" else "dpdk"


def _driver(test: RuleInput, testbed: str | None) -> str | None:
    found = _first(_DRIVER, test.test_id) or _first(_DRIVER, test.name)
    if found:
        return found.replace("_", "-")
    for tag in test.tags:
        named = _DRIVER_TAGS.get(tag.lower())
        if named:
            return _vfio_plugin(testbed) if named == "dpdk" else named
    return _vfio_plugin(testbed) if _nic(test, testbed) else None


def _frame_size(test: RuleInput, testbed: str | None) -> str | None:
    found = _first(_FRAME, test.name)
    if found:
        return found
    tag = next((tag for tag in test.tags if _FRAME_TAG.fullmatch(tag)), None)
    if tag is None:
        return None
    return "imix" if tag.lower().startswith("imix") else tag.lower()


def _cores(test: RuleInput, testbed: str | None) -> str | None:
    """A CSIT case name's cores slot, as csit-dash reads it (``64b-1c-``: ``1C``,
    though the run also tags itself ``2T1C``); else the tags, else a token."""
    case = _CSIT_CASE.search(test.name)
    if case:
        return case["cores"].upper() or _TG_CORES
    tagged = thread_core(test.tags)
    if tagged:
        return tagged
    found = _first(_CORES, test.name)
    return found.upper() if found else None


def _test_type(test: RuleInput, testbed: str | None) -> str | None:
    declared = test.test_type
    if declared:
        return declared.lower()
    tags = {tag.lower() for tag in test.tags}
    tagged = next((kind for kind in _TEST_TYPE_TAGS if kind in tags), None)
    if tagged:
        return tagged
    last = re.split(r"[-\s]", test.name.strip().lower())[-1]
    return _TEST_TYPE_SUFFIXES.get(last)


def _testbed(test: RuleInput, testbed: str | None) -> str | None:
    return testbed


Rule = Callable[[RuleInput, str | None], str | None]
"""Derives one dimension from a test and its build's testbed.

Every rule but the testbed's reads the testbed only through
:func:`_vfio_plugin` (none of a source's own rules reads it at all):
:class:`DimensionMemo` relies on it."""

DEFAULT_RULES: dict[str, Rule] = {
    "testbed": _testbed,
    "nic": _nic,
    "driver": _driver,
    "frame_size": _frame_size,
    "cores": _cores,
    "test_type": _test_type,
}


def _tag_rule(prefix: str) -> Rule:
    lowered = prefix.lower()

    def rule(test: RuleInput, testbed: str | None) -> str | None:
        for tag in test.tags:
            if tag.lower().startswith(lowered) and len(tag) > len(prefix):
                return tag[len(prefix) :].lower()
        return None

    return rule


def _regex_rule(pattern: re.Pattern[str]) -> Rule:
    """The ``value`` group, else the first group, else the whole match; id before name."""

    def rule(test: RuleInput, testbed: str | None) -> str | None:
        for text in (test.test_id, test.name):
            found = pattern.search(text)
            if found is None:
                continue
            if "value" in pattern.groupindex:
                value = found.group("value")
            else:
                value = found.group(1) if pattern.groups else found.group(0)
            return value.lower() if value else None
        return None

    return rule


def _no_rule(test: RuleInput, testbed: str | None) -> str | None:
    return None


@dataclass(frozen=True)
class DimensionRules:
    """How a source's tests are measured up: one rule per dimension, in
    :data:`DIMENSIONS` order (see :func:`rules_for`)."""

    rules: tuple[Rule, ...]

    def derive(self, test: NamedTest, testbed: str | None) -> Dimensions:
        facts = RuleInput.of(test)
        return Dimensions(*(rule(facts, testbed) for rule in self.rules))

    def display_name(self, test: NamedTest, testbed: str | None) -> str:
        """The one name every view, table, export, e-mail and ``check`` gives
        ``test`` of a build on ``testbed`` (see :func:`display_name`)."""
        return display_name(test.name, self.derive(test, testbed))


class DimensionMemo:
    """:meth:`DimensionRules.derive` for many tests, each distinct test derived once.

    A source's histories are its tests on each of its testbeds, so most of
    them are the same test as another (CSIT: 2,000 tests on 10 testbeds).
    Rules read only a :class:`RuleInput` and the testbed, the testbed only
    through :func:`_vfio_plugin` but for the testbed's own rule (see
    :data:`Rule`): so every dimension but the testbed is filed under those
    two, and the testbed's is derived each time.  Keep one for a set of
    histories made together, not for the process: it holds what it saw.
    """

    def __init__(self, rules: DimensionRules) -> None:
        self._testbed, *self._others = rules.rules  # DIMENSIONS lists the testbed first
        self._found: dict[tuple[RuleInput, str], tuple[str | None, ...]] = {}

    def derive(self, test: NamedTest, testbed: str | None) -> Dimensions:
        facts = RuleInput.of(test)
        key = (facts, _vfio_plugin(testbed))
        others = self._found.get(key)
        if others is None:
            others = self._found[key] = tuple(rule(facts, testbed) for rule in self._others)
        return Dimensions(self._testbed(facts, testbed), *others)


def compile_rule(dimension: str, text: str) -> Rule:
    """One user rule: ``""`` turns the dimension off, ``tag:PREFIX`` reads a tag,
    anything else is a regular expression searched (ignoring case) in the test
    id, then the case name.  Raises ValueError naming the dimension."""
    if dimension not in DIMENSIONS:
        raise ValueError(f"unknown dimension {dimension!r}; known: {', '.join(DIMENSIONS)}")
    if not text:
        return _no_rule
    if text.startswith(TAG_RULE_PREFIX):
        prefix = text[len(TAG_RULE_PREFIX) :]
        if not prefix:
            raise ValueError(f"dimension {dimension!r}: 'tag:' needs a tag prefix after it")
        return _tag_rule(prefix)
    try:
        pattern = re.compile(text, re.IGNORECASE)
    except re.error as error:
        raise ValueError(
            f"dimension {dimension!r}: {text!r} is not a valid regular expression: {error}"
        ) from None
    return _regex_rule(pattern)


@cache
def rules_for(overrides: tuple[tuple[str, str], ...] = ()) -> DimensionRules:
    """The built-in rules with a ``dimensions`` option's (dimension, rule) pairs
    in their place, compiled once per process."""
    table = dict(DEFAULT_RULES)
    for dimension, text in overrides:
        table[dimension] = compile_rule(dimension, text)
    return DimensionRules(tuple(table[name] for name in DIMENSIONS))


def normalise_dimension(name: str) -> str:
    """``frame-size`` and ``Frame_Size`` are ``frame_size``."""
    return name.strip().lower().replace("-", "_")


def overrides_from(mapping: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """A checked, hashable form of a ``dimensions`` option; raises ValueError.

    Names are taken as ``:group-by:`` takes them (``Frame-Size`` is ``frame_size``).
    """
    pairs = tuple(
        sorted((normalise_dimension(str(name)), value) for name, value in mapping.items())
    )
    for name, value in pairs:
        if not isinstance(value, str):
            raise ValueError(
                f"dimension {name!r}: expected a regular expression or 'tag:PREFIX', got {value!r}"
            )
        compile_rule(name, value)
    return pairs


_SEPARATORS = re.compile(r"[-\s]+")


def display_name(name: str, dimensions: Dimensions) -> str:
    """The case name led by the hardware it ran on: ``2n-icx 100ge2p1e810cq avf 64b
    2t1c ethip4-ip4base-mrr``, as the reference's tables named tests.

    Only a test that names a NIC is renamed: generic data (a cores tag at
    most) keeps its names.  Dimension values already in the name are taken out of it
    first, so the result is the same when a display name is named again
    (an export read back in).
    """
    if not dimensions.nic:
        return name
    hardware = (dimensions.nic, dimensions.driver, dimensions.frame_size, dimensions.cores)
    lead = [value.lower() for value in (dimensions.testbed, *hardware) if value]
    rest = name
    for value in lead:
        rest = _bounded(re.escape(value)).sub(" ", rest)
    if dimensions.cores:
        rest = _CORES.sub(" ", rest)
    rest = _SEPARATORS.sub(lambda gap: "-" if "-" in gap.group(0) else " ", rest).strip(" -")
    return " ".join([*lead, rest] if rest else lead)
