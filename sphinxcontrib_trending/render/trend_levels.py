"""Where a series' trend line steps, and the level a failed run interrupted.

A graph draws the trend as a step line through the runs it shows, and puts
a failed run on the level it interrupted.  Walking every run of thousands
of series for that cost as much as the rest of the figure, yet the level
changes only where a group starts: the steps are found from the groups
and the few missing runs, a look-up in the shown runs per group, so their
cost does not grow with the history.  Levels compare as the values of
:func:`~sphinxcontrib_trending.analysis.trend_per_run` do: a run outside
every group, or missing, has no level (None), equal to another run without
one and to nothing else; a level that is not a number (an average of
infinities) differs from every level, itself included.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from sphinxcontrib_trending.analysis.classify import Classification


class TrendLevels:
    """Each run's group average, as the graph of one grouping reads it."""

    def __init__(self, result: Classification) -> None:
        self.result = result
        self._starts = [group.start for group in result.groups]
        self._missing = frozenset(result.missing)

    def level(self, run: int) -> float | None:
        """The level of run ``run``: its group's average; None outside every group
        or where the run is missing."""
        groups = self.result.groups
        at = bisect_right(self._starts, run) - 1
        if at < 0 or run >= groups[at].stop or run in self._missing:
            return None
        return groups[at].avg

    def steps(self, shown: Sequence[int]) -> tuple[list[int], list[float | None]]:
        """Where the level changes along the ``shown`` runs (ascending), as positions
        among them, then the last; and the level from each.

        A step line (Plotly's ``"hv"``) needs only those points.  The first
        run is a step if it has a level.
        """
        found = self._group_steps(shown)
        return self._walked(shown) if found is None else found

    def _group_steps(self, shown: Sequence[int]) -> tuple[list[int], list[float | None]] | None:
        """:meth:`steps` from the groups alone, where every shown run has a level
        that is a number (else None): then the level changes only at the first
        shown run of a group whose average differs from the previous one's."""
        groups = self.result.groups
        if not shown:
            return [], []
        if not groups or shown[0] < groups[0].start or shown[-1] >= groups[-1].stop:
            return None
        for run in self._missing:
            at = bisect_left(shown, run)
            if at < len(shown) and shown[at] == run:
                return None
        steps: list[int] = []
        levels: list[float | None] = []
        reached = groups[0].start
        for group in groups:
            level = group.avg
            if group.start != reached or level != level:  # a gap, or every run a step
                return None
            reached = group.stop
            position = bisect_left(shown, group.start)
            if position == len(shown) or shown[position] >= group.stop:
                continue  # none of its runs is shown
            if not levels or level != levels[-1]:
                steps.append(position)
                levels.append(level)
        if steps[-1] != len(shown) - 1:
            steps.append(len(shown) - 1)  # the last level reaches the newest run
            levels.append(levels[-1])
        return steps, levels

    def _walked(self, shown: Sequence[int]) -> tuple[list[int], list[float | None]]:
        """:meth:`steps` run by run, for the groupings :meth:`_group_steps` leaves."""
        steps: list[int] = []
        levels: list[float | None] = []
        level = None
        for position, run in enumerate(shown):
            value = self.level(run)
            if value != level:
                level = value
                steps.append(position)
                levels.append(value)
        if shown and (not steps or steps[-1] != len(shown) - 1):
            steps.append(len(shown) - 1)
            levels.append(level)
        return steps, levels

    def before(self, runs: Sequence[int]) -> list[float]:
        """The level at or before each of ``runs`` (a failed run: the level it
        interrupted); before every level the series' first, 0.0 if it has none.

        Each run looks back only as far as the run asked before it: a test
        failing for months has hundreds of failed runs in a row, and each
        looking back over all the others cost its graph their square.
        """
        found = []
        level: float | None = None  # the level at or before run `reached`
        reached = -1
        for run in runs:
            if run < reached:  # asked out of order: looked back afresh
                level, reached = None, -1
            for at in range(run, reached, -1):
                value = self.level(at)
                if value is not None:
                    level = value
                    break
            reached = run
            found.append(self._first() if level is None else level)
        return found

    def _first(self) -> float:
        """The first level of the series (0.0 if it has none): what a run before it had."""
        return next(
            (
                group.avg
                for group in self.result.groups
                if any(run not in self._missing for run in range(group.start, group.stop))
            ),
            0.0,
        )
