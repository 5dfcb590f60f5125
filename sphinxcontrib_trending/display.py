"""How numbers are shown to people: packet rates in Mpps, as the methodology asks.

Below both the reports (the command line's table, the alert e-mail) and the
rendered pages, so that a value reads the same in each.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

MEGA_UNITS = frozenset({"pps", "cps", "bps"})
ACRONYM_METRICS = frozenset({"mrr", "ndr", "pdr", "cps"})
"""CSIT's metrics (see the unit table of the formats page) are acronyms, shown upper-case."""


@dataclass(frozen=True)
class DisplayUnit:
    scale: float
    label: str

    def format(self, value: float | None, digits: int = 2) -> str:
        return "" if value is None else f"{value * self.scale:.{digits}f}"


def display_unit(unit: str | None) -> DisplayUnit:
    """Rates in the millions read best with an M prefix; anything else as is."""
    if unit in MEGA_UNITS:
        return DisplayUnit(1e-6, f"M{unit}")
    return DisplayUnit(1.0, unit or "value")


def metric_label(metric: str) -> str:
    """A metric as people name it: CSIT's acronyms upper-case, any other as written."""
    return metric.upper() if metric.lower() in ACRONYM_METRICS else metric


@functools.lru_cache(maxsize=256)
def axis_label(metric: str, unit: str | None) -> str:
    """``MRR [Mpps]``, ``seconds [s]``, or the bare metric when the data has no unit.

    Kept per metric and unit: a page of a graph per test asks it of each of
    thousands of figures, all alike.
    """
    label = metric_label(metric)
    return f"{label} [{display_unit(unit).label}]" if unit else label


def percent(change: float | None) -> str:
    """A relative change as a percentage; blank when the window had no value."""
    return "" if change is None else f"{change * 100:.2f}"


def with_testbed(name: str, testbed: str | None) -> str:
    """A test's name for a line that stands alone (check, e-mail, feed, chat): with its
    testbed in brackets, unless the name already leads with it (CSIT's display names)."""
    if not testbed or name.lower().startswith(f"{testbed.lower()} "):
        return name
    return f"{name} [{testbed}]"
