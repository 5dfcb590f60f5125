"""How raw metric values are shown: packet rates in Mpps, as the methodology asks."""

from __future__ import annotations

from dataclasses import dataclass

MEGA_UNITS = frozenset({"pps", "cps", "bps"})


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
