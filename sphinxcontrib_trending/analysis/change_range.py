"""Where a change happened: the last run of the old level and the first of the new.

A regression is found at the first run of a new group, but what an engineer
bisects is the span between the last run that still measured the old level
and that first run: the commits (or DUT versions, or CI builds) in between
hold the cause.  Named as ``git bisect`` names them, ``last_good`` and
``first_bad``, for progressions too (there the "bad" run is the better one).

A failing streak has the same shape: the last passed run and the first
failed one.  Graphs, tables, news, the CI gate and grouped incidents all ask
this one question, so it is answered here, from runs and groups only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from sphinxcontrib_trending.analysis.classify import Group
from sphinxcontrib_trending.analysis.test_run import Run


@dataclass(frozen=True)
class ChangeRange:
    """The two runs a change lies between; ``last_good`` None when nothing came before."""

    last_good: Run | None
    first_bad: Run

    @property
    def versions(self) -> tuple[str | None, str | None]:
        """The DUT versions (commits, for per-commit histories) at both ends."""
        before = self.last_good.dut_version if self.last_good is not None else None
        return before, self.first_bad.dut_version

    def text(self) -> str:
        """``v1 .. v2`` by version, else by CI build where a run has no version."""
        before, after = self.versions
        if self.last_good is None:
            return after or self.first_bad.job_build
        if before is None or after is None:
            return f"{self.last_good.job_build} .. {self.first_bad.job_build}"
        return f"{before} .. {after}"


def last_measured(runs: Sequence[Run], group: Group) -> Run | None:
    """The newest run of ``group`` that measured its level (not an outlier, not a failure)."""
    left_out = set(group.outliers)
    for index in range(group.stop - 1, group.start - 1, -1):
        if runs[index].measured and index not in left_out:
            return runs[index]
    return None


def change_range(runs: Sequence[Run], groups: Sequence[Group], start: int) -> ChangeRange | None:
    """The range of the change where a group starts at run ``start``.

    ``groups`` are a grouping of ``runs`` (or of a prefix of them, as the CI
    gate judged it); None when no group but the first starts at ``start``.
    """
    for previous, group in pairwise(groups):
        if group.start == start:
            return ChangeRange(last_measured(runs, previous), runs[start])
    return None


def streak_range(runs: Sequence[Run], start: int) -> ChangeRange:
    """The range of a failing streak that starts at run ``start``: the last passed run before."""
    last_passed = next(
        (runs[index] for index in range(start - 1, -1, -1) if runs[index].status == "PASS"), None
    )
    return ChangeRange(last_passed, runs[start])
