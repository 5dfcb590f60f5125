"""The declared identities that every memo, cache key and link is derived from.

A site shows several metrics of one source, with several grouping settings,
and any number of pages ask for the same series.  A key assembled by hand at
each use once forgot the metric, and every page after the first showed the
first metric's numbers.  So the identities live here, as frozen types, and a
key is only ever one of these (or derived from one by a method here):

- :class:`GroupingSpec`: every setting that changes how a series is grouped;
- :class:`SeriesRef`: one series within a source (metric, testbed and test);
- :class:`SeriesTarget`: the same across the site, with the source's name,
  which is what a graph's anchor and a table's link name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Literal, get_args

from sphinxcontrib_trending.analysis.excluded import NO_EXCLUSIONS, Exclusions

Samples = Literal["runs", "trials"]
"""Group run averages (the methodology), or every trial of every run."""
SAMPLE_MODES: tuple[Samples, ...] = get_args(Samples)


@dataclass(frozen=True, slots=True)
class GroupingSpec:
    """Every setting that changes a series' grouping; windows and policies do not.

    Passed whole from the configuration or the command line to the search and
    to the grouping cache, whose scope and content hashes are derived from it
    (:meth:`fields`): a setting added here cannot be left out of a key.
    """

    samples: str = "runs"
    search: str = "exact"
    direction: str = "higher"
    sbps: float | None = None
    outlier_runs: int | None = None
    exclusions: Exclusions = NO_EXCLUSIONS
    """The curated runs the grouping leaves out (see :mod:`.excluded`)."""
    calibration: str = "seed"
    """``"seed"`` or ``"spread"`` (resolved, see :mod:`.calibration`): how the unit is found."""

    def fields(self) -> dict[str, object]:
        """The settings by name: what cache scopes and content hashes serialise.

        An exclusion's reason and place in its file change no grouping, so
        only what selects its runs is kept.
        """
        found: dict[str, object] = {item.name: getattr(self, item.name) for item in fields(self)}
        found["exclusions"] = self.exclusions.key()
        return found


@dataclass(frozen=True, slots=True, order=True)
class SeriesRef:
    """One series of a source: a metric of one test on one testbed.

    ``key`` is the history key (``testbed/test id``, see
    :func:`~.history.history_key`); the same test and testbed measured as
    two metrics are two series.
    """

    metric: str
    key: str

    def __reduce__(self) -> tuple[type[SeriesRef], tuple[str, str]]:
        # a site's environment holds a few of these per series: pickled by the
        # constructor, one loads in half the time of a slotted dataclass's state
        return SeriesRef, (self.metric, self.key)

    @property
    def identity(self) -> str:
        """The series' name in the grouping cache, unique within a source."""
        return f"{self.metric}/{self.key}"


@dataclass(frozen=True, slots=True, order=True)
class SeriesTarget:
    """One series of the whole site: what a graph anchor and a table link name."""

    source: str
    series: SeriesRef

    def __reduce__(self) -> tuple[type[SeriesTarget], tuple[str, SeriesRef]]:
        return SeriesTarget, (self.source, self.series)

    @property
    def anchor(self) -> str:
        """An HTML id that survives any test name: lower-case, safe characters only."""
        text = f"{self.source}-{self.series.metric}-{self.series.key}".lower()
        return "trending-" + re.sub(r"[^a-z0-9]+", "-", text).strip("-")
