"""Where a series' trend line steps, and the level a failed run interrupted.

A graph draws the trend as a step line through the runs it shows, and puts
a failed run on the level it interrupted.  Walking every run of thousands
of series in Python for that cost as much as the rest of the figure: the
level changes only where a group starts, so a series whose every run is
shown steps at its groups' starts, and any other is a few array operations.
Levels compare as the Python values of
:func:`~sphinxcontrib_trending.analysis.trend_per_run` do: a run outside
every group has no level (None), equal to another run without one and to
nothing else; a level that is not a number (an average of infinities)
differs from every level, itself included.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.analysis.classify import Classification


class TrendLevels:
    """Each run's group average, as the graph of one grouping reads it."""

    def __init__(self, result: Classification) -> None:
        self.result = result

    @cached_property
    def _arrays(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        """Each run's level, and whether it has one (0.0 stands for None)."""
        result = self.result
        values = np.zeros(result.run_count)
        known = np.zeros(result.run_count, dtype=bool)
        for group in result.groups:
            values[group.start : group.stop] = group.avg
            known[group.start : group.stop] = True
        if result.missing:
            missing = list(result.missing)
            values[missing], known[missing] = 0.0, False
        return values, known

    def at(self, runs: list[int]) -> list[float]:
        """The levels of ``runs``, each of which has one."""
        values: list[float] = self._arrays[0][runs].tolist()
        return values

    def steps(self, shown: npt.NDArray[np.intp] | None) -> tuple[list[int], list[float]]:
        """Where the level changes along the ``shown`` runs (None: every run), as
        positions among them, then the last; and the level from each.

        A step line (Plotly's ``"hv"``) needs only those points.  The first
        run is a step if it has a level.
        """
        if shown is None:
            found = self._group_steps()
            if found is not None:
                return found
            shown = np.arange(self.result.run_count)
        if not len(shown):
            return [], []
        values, known = (column[shown] for column in self._arrays)
        changed = np.empty(len(shown), dtype=bool)
        changed[0] = known[0]
        np.not_equal(values[1:], values[:-1], out=changed[1:])
        changed[1:] |= known[1:] != known[:-1]
        steps: list[int] = changed.nonzero()[0].tolist()
        if not steps or steps[-1] != len(shown) - 1:
            steps.append(len(shown) - 1)  # the last level reaches the newest run
        levels: list[float] = values[steps].tolist()
        return steps, levels

    def _group_steps(self) -> tuple[list[int], list[float]] | None:
        """:meth:`steps` of every run, from the groups alone where they cover every
        run with a level that is a number (else None): the level changes only
        where a group starts."""
        result = self.result
        groups = result.groups
        if result.missing or not groups or groups[0].start or groups[-1].stop != result.run_count:
            return None
        steps: list[int] = []
        levels: list[float] = []
        reached = 0
        for group in groups:
            level = group.avg
            if group.start != reached or level != level:  # a gap, or every run a step
                return None
            reached = group.stop
            if not levels or level != levels[-1]:
                steps.append(group.start)
                levels.append(level)
        if steps[-1] != result.run_count - 1:
            steps.append(result.run_count - 1)  # the last level reaches the newest run
            levels.append(levels[-1])
        return steps, levels

    def before(self, runs: list[int]) -> list[float]:
        """The level at or before each of ``runs`` (a failed run: the level it
        interrupted); before every level the series' first, 0.0 if it has none."""
        values, known = self._arrays
        with_level = known.nonzero()[0]
        if not len(with_level):
            return [0.0] * len(runs)
        at = np.searchsorted(with_level, runs, side="right") - 1
        found: list[float] = values[with_level[np.maximum(at, 0)]].tolist()
        return found
