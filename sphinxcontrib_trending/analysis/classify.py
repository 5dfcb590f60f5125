"""Group a test's history into stretches of stable performance and label the changes.

This is the entry point every number on the site comes from: the trend line
(group averages), the anomalies (where a new group starts) and, through
:mod:`.compliance`, the dashboard's change columns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from sphinxcontrib_trending.analysis.bits import BitModel, resolve_unit
from sphinxcontrib_trending.analysis.confidence import (
    bits_saved_per_group,
    serial_correlation_per_group,
    split_confidence,
)
from sphinxcontrib_trending.analysis.exact import exact_search
from sphinxcontrib_trending.analysis.greedy import Partition, greedy_search
from sphinxcontrib_trending.analysis.outliers import (
    DEFAULT_OUTLIER_RUNS,
    Excursion,
    OutlierPartition,
    find_outliers,
)
from sphinxcontrib_trending.analysis.runs import PreparedRuns, Run, RunStatistics, prepare_runs

Search = Literal["exact", "jumpavg"]
Direction = Literal["higher", "lower"]
Comment = Literal["normal", "regression", "progression"]

SEARCHES: tuple[Search, ...] = get_args(Search)
DIRECTIONS: tuple[Direction, ...] = get_args(Direction)


@dataclass(frozen=True)
class Group:
    """A stretch of runs modelled as one normal distribution.

    ``start``/``stop`` are run indices in the caller's numbering, half-open like
    :func:`range`.  ``start`` is always a measured run; missing runs after it and
    before the next group's start belong to the span.
    """

    start: int
    stop: int
    avg: float
    """Population average over every trial of the group's runs."""
    stdev: float
    """Population standard deviation over every trial of the group's runs."""
    size: int
    """Number of trials in the group."""
    comment: Comment
    """``"regression"``/``"progression"`` when the group starts a worse/better level."""
    bits_saved: float | None = None
    """Bits the partition saves by keeping this group apart from the previous one
    (see :doc:`/methodology/anomalies`); None for the first group."""
    confidence: float | None = None
    """``1 / (1 + 2**-bits_saved)``: the probability of a change here against
    merging with the previous group, under equal priors and at this grouping's
    ``unit`` (another ``unit`` or ``sbps`` gives another value); None for the
    first group."""
    serial_correlation: float | None = None
    """Lag-1 autocorrelation of the run averages' residuals around their group
    averages, over this group and the previous one; None for the first group.
    Near 0 for independent noise; near 1 where a trend or a season was cut into
    steps.  :class:`~.AnomalyPolicy` can discount the confidence by it."""
    outliers: tuple[int, ...] = ()
    """Runs inside the group that left it and came straight back (see
    :mod:`.outliers`): they keep their place in the span but are left out of
    ``avg``, ``stdev`` and ``size``."""


@dataclass(frozen=True)
class Classification:
    """The grouping of one series of runs."""

    groups: list[Group]
    bits: float
    """Description length of the chosen partition, in bits (0.0 when nothing to encode)."""
    missing: tuple[int, ...]
    """Indices of runs with no usable value, skipped by the grouping."""
    run_count: int
    direction: Direction = "higher"
    search: Search = "exact"
    unit: float | None = None
    """The value resolution the bit counts assumed (None when there was nothing to count)."""
    outlier_runs: int = 0
    """``K``: the longest excursion (in runs) the grouping could call outliers; 0 for none."""

    @property
    def outliers(self) -> tuple[int, ...]:
        """Every outlier run, oldest first (the caller's numbering)."""
        return tuple(run for group in self.groups for run in group.outliers)


def resolve_outlier_runs(outlier_runs: int | None, search: Search) -> int:
    """``K`` for a search: None means :data:`.DEFAULT_OUTLIER_RUNS` with ``"exact"`` and 0
    with ``"jumpavg"``, which stays the reference library's grouping, decision for decision."""
    if outlier_runs is None:
        return DEFAULT_OUTLIER_RUNS if search == "exact" else 0
    if not isinstance(outlier_runs, int) or isinstance(outlier_runs, bool) or outlier_runs < 0:
        raise ValueError(f"outlier_runs must be an integer >= 0, got {outlier_runs!r}")
    return outlier_runs


def classify(
    runs: Sequence[Run],
    unit: float | None = None,
    sbps: float | None = None,
    search: Search = "exact",
    direction: Direction = "higher",
    outlier_runs: int | None = None,
) -> Classification:
    """Split ``runs`` into groups by Minimum Description Length and label each group.

    Args:
        runs: One entry per test run, oldest first: a number, a sequence of
            trial values, or ``None``/NaN/an empty sequence for a run without a
            result.
        unit: Resolution of the values; differences below it are noise by
            assumption.  Default: derived from ``sbps``.
        sbps: Significant bits per sample: ``unit = M / (2**(sbps + 1) - 1)``,
            ``M`` the largest value (the range, when a value is negative).
            Default 12.
        search: ``"exact"`` finds the partition with the fewest bits;
            ``"jumpavg"`` reproduces the reference library jumpavg 0.4.2.
        direction: ``"higher"`` if larger values are better (throughput),
            ``"lower"`` if smaller are (latency); decides which change is a
            regression.
        outlier_runs: ``K``: an excursion of at most this many runs that
            leaves its group and comes straight back is an outlier of the
            group when that describes the data in fewer bits (see
            :mod:`.outliers`); 0 never.  Default: 3 with ``"exact"``, 0 with
            ``"jumpavg"`` (the reference's grouping).

    Any finite value is accepted; negative values shift the whole series
    (see :mod:`.runs`), non-negative ones are grouped as the reference does.

    Raises:
        ValueError: an infinite value or one beyond +-1e100 (naming the
            run), or an unknown ``search``/``direction``.
    """
    if search not in SEARCHES:
        raise ValueError(f"search must be one of {SEARCHES}, got {search!r}")
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    return classify_prepared(
        prepare_runs(runs),
        unit,
        sbps,
        search,
        direction,
        outlier_runs=resolve_outlier_runs(outlier_runs, search),
    )


Searcher = Callable[[PreparedRuns, BitModel], Partition]


def classify_prepared(
    prepared: PreparedRuns,
    unit: float | None,
    sbps: float | None,
    search: Search,
    direction: Direction,
    searcher: Searcher | None = None,
    model: BitModel | None = None,
    outlier_runs: int = 0,
    details: bool = True,
) -> Classification:
    """:func:`classify` of runs already prepared; ``searcher`` overrides ``search``'s.

    :class:`~.incremental.IncrementalClassifier` passes a searcher that
    reuses the search state of a shorter history, and that state's bit model
    (which must be the one ``unit`` and ``sbps`` give for these runs).
    ``outlier_runs`` is ``K`` of :func:`.find_outliers`, already resolved.
    ``details=False`` leaves every group's ``bits_saved``, ``confidence`` and
    ``serial_correlation`` None: ``check --all`` reads only where the groups
    are for most runs, and asks for them again with details where it grades
    a change.
    """
    if not prepared.count:
        return Classification(
            groups=[],
            bits=0.0,
            missing=prepared.missing,
            run_count=prepared.run_count,
            direction=direction,
            search=search,
            outlier_runs=outlier_runs,
        )
    if prepared.max_value <= 0.0:
        # all equal to the smallest value: nothing varies, and no scale to work with
        partition = Partition((0,), (int(prepared.sizes.sum()),), (0.0,), (0.0,), 0.0)
        nothing = OutlierPartition(partition, ((),))
        return _with_groups(prepared, nothing, None, direction, search, outlier_runs, details)
    if model is None:
        resolved_unit = resolve_unit(prepared.max_value, unit, sbps)
        model = BitModel(prepared.max_value, resolved_unit, int(prepared.sizes.sum()))
    if searcher is None:
        searcher = exact_search if search == "exact" else greedy_search
    partition = searcher(prepared, model)
    run_counts = [
        stop - start
        for start, stop in zip(
            partition.starts, (*partition.starts[1:], prepared.count), strict=True
        )
    ]
    found = find_outliers(partition, run_counts, model, outlier_runs, RunStatistics(prepared))
    return _with_groups(prepared, found, model, direction, search, outlier_runs, details)


def _with_groups(
    prepared: PreparedRuns,
    found: OutlierPartition,
    model: BitModel | None,
    direction: Direction,
    search: Search,
    outlier_runs: int,
    details: bool = True,
) -> Classification:
    """Map the partition of the present runs back to the caller's run numbering.

    ``model`` prices the merges behind each group's confidence; None (an
    all-zero input, which is one group) or ``details=False`` leaves them
    unset.  Confidences and serial correlations are those of the inlier runs.
    The classification is made once, here: each series a build extends makes
    one, and a frozen dataclass of eight fields costs microseconds to make.
    """
    partition = found.partition
    present = prepared.present  # indexed at the groups' starts and outliers only
    stops = [int(present[start]) for start in partition.starts[1:]] + [int(present[-1]) + 1]
    stats = list(zip(partition.sizes, partition.avgs, partition.stdevs, strict=True))
    saved: list[float | None] = [None] * len(stats)
    correlations: list[float | None] = [None] * len(stats)
    if model is not None and details:
        saved = bits_saved_per_group(model, stats)
        correlations = _inlier_correlations(prepared, found)
    groups = []
    previous: float | None = None
    for start, stop, (size, shifted_avg, stdev), bits_saved, correlation, excursions in zip(
        partition.starts, stops, stats, saved, correlations, found.excursions, strict=True
    ):
        avg = shifted_avg + prepared.offset if prepared.offset else shifted_avg
        groups.append(
            Group(
                start=int(present[start]),
                stop=stop,
                avg=avg,
                stdev=stdev,
                size=size,
                comment=_comment(previous, avg, direction),
                bits_saved=bits_saved,
                confidence=None if bits_saved is None else split_confidence(bits_saved),
                serial_correlation=correlation,
                outliers=tuple(present[_runs_of(excursions)].tolist()) if excursions else (),
            )
        )
        previous = avg
    return Classification(
        groups=groups,
        bits=partition.bits,
        missing=prepared.missing,
        run_count=prepared.run_count,
        direction=direction,
        search=search,
        unit=None if model is None else model.unit,
        outlier_runs=outlier_runs,
    )


def _runs_of(excursions: tuple[Excursion, ...]) -> list[int]:
    return [run for excursion in excursions for run in range(excursion.start, excursion.stop)]


def _inlier_correlations(prepared: PreparedRuns, found: OutlierPartition) -> list[float | None]:
    """:func:`.serial_correlation_per_group` over the inlier runs, outliers taken out.

    A group's first inlier sits, among the inliers, at its start less the
    outliers before that start; a group that starts with an outlier (an
    overshoot at a step, see :mod:`.outliers`) gives the same position, since
    its outlier runs are not among the inliers either.
    """
    partition = found.partition
    if len(partition.starts) < 2:
        return [None]
    outliers = [run for excursions in found.excursions for run in _runs_of(excursions)]
    if not outliers:
        return serial_correlation_per_group(prepared.avgs, partition.starts, partition.avgs)
    inlier = np.ones(prepared.count, dtype=np.bool_)
    inlier[outliers] = False
    starts = np.asarray(partition.starts, dtype=np.int64)
    starts -= np.searchsorted(np.asarray(outliers, dtype=np.int64), starts)
    return serial_correlation_per_group(prepared.avgs[inlier], starts, partition.avgs)


def _comment(previous: float | None, avg: float, direction: Direction) -> Comment:
    """Label a group by how its average compares with the previous group's."""
    if previous is None or avg == previous:
        return "normal"
    better = avg > previous if direction == "higher" else avg < previous
    return "progression" if better else "regression"
