"""Extending a batch of saved searches by a run each, in one compiled call.

:func:`extend_batch` takes what :func:`.many.extend_job` takes for each
series of a batch and gives the same grouping and new state, but for the
search itself: every state is decoded, checked, extended, backtracked and
encoded again by :func:`.batch_kernels.extend_states` in one call for the
whole batch.  What stays per series is what needs Python anyway: preparing
the runs, the bit model, pricing the partition found with the reference's
exact formula, and classifying it (outliers, confidences).

A series it does not take (trials per run, a new largest value, more than
one new run, a state it refuses or cannot settle alone) is left to
:func:`.many.extend_job`, which gives it exactly what it gives it today: the
answer is None for it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from sphinxcontrib_trending.analysis.bits import BitModel, ranking_parts, resolve_unit
from sphinxcontrib_trending.analysis.calibration import calibrated_unit
from sphinxcontrib_trending.analysis.classify import (
    Classification,
    classify_prepared,
    resolve_outlier_runs,
)
from sphinxcontrib_trending.analysis.exact import GAUSS_BITS_PER_TRIAL, RELATIVE_SLACK, groups_bits
from sphinxcontrib_trending.analysis.greedy import Partition
from sphinxcontrib_trending.analysis.identity import GroupingSpec
from sphinxcontrib_trending.analysis.runs import PreparedRuns, is_number_array, prepare_runs
from sphinxcontrib_trending.analysis.saved_search import HEADER_END, MAGIC, header

LITTLE_ENDIAN = np.dtype("<f8").isnative
"""States are little-endian: elsewhere every series goes the one-by-one way."""
MAGIC_BYTES = np.frombuffer(MAGIC, dtype=np.uint8)
LARGEST_TABLE = 1 << 31
"""The largest size table a state may claim (see :meth:`.SavedSearch.check`)."""

Extended = tuple[Classification, memoryview]
"""A series' grouping and its new search state's bytes."""


@functools.cache
def _kernels() -> ModuleType:
    """The compiled batch loop, loaded where a batch is first extended (see :mod:`.exact`)."""
    from sphinxcontrib_trending.analysis.exact_loading import compiled_loops

    compiled_loops()
    from sphinxcontrib_trending.analysis import batch_kernels

    return batch_kernels


class StateBuffer:
    """A batch's saved states one after the other in one array, as the compiled loop reads
    them: each after the few bytes that make its arrays start on a word (read in place).

    A worker reads each state straight into its place (:meth:`slot`), so the
    bytes are copied once, from the file.
    """

    def __init__(self, lengths: Sequence[int]) -> None:
        starts = []
        at = 0
        for length in lengths:
            at += -(at + HEADER_END) % 8
            starts.append(at)
            at += length
        self.data = np.empty(at, dtype=np.uint8)
        self.starts = np.array(starts, dtype=np.int64)
        self.lengths = np.array(lengths, dtype=np.int64)
        self._view = memoryview(self.data)

    @classmethod
    def of(cls, states: Sequence[bytes]) -> StateBuffer:
        """A buffer holding ``states``."""
        buffer = cls([len(state) for state in states])
        for number, state in enumerate(states):
            buffer.slot(number)[:] = state
        return buffer

    def slot(self, number: int) -> memoryview:
        """Where state ``number`` lies (to read it into, or from)."""
        start = int(self.starts[number])
        return self._view[start : start + int(self.lengths[number])]


class _Series:
    """One series the batch takes: its runs, settings, model and unit."""

    __slots__ = ("model", "prepared", "seen", "settings", "unit")

    def __init__(
        self,
        prepared: PreparedRuns,
        seen: int,
        unit: float | None,
        model: BitModel,
        settings: GroupingSpec,
    ) -> None:
        self.prepared, self.seen, self.unit = prepared, seen, unit
        self.model, self.settings = model, settings


def extend_batch(
    jobs: Sequence[Any], seen: Sequence[int], states: StateBuffer, slots: Sequence[int]
) -> list[Extended | None]:
    """Per job, what :func:`.many.extend_job` gives of it, its saved search having seen
    ``seen`` of its runs (``states.slot(slots[number])``), or None where it is left to it
    (see the module's description); the state as bytes already."""
    answers: list[Extended | None] = [None] * len(jobs)
    taken: list[tuple[int, _Series]] = []
    for number, job in enumerate(jobs):
        series = _taken(job.samples, job.settings, seen[number], states.slot(slots[number]))
        if series is not None:
            taken.append((number, series))
    if not taken:
        return answers
    length, sphere, length_one = ranking_parts()  # every model of the batch made by now
    numbers = np.array([slots[number] for number, _ in taken], dtype=np.int64)
    runs = [series.prepared.avgs for _, series in taken]
    runs_at = np.zeros(len(runs) + 1, dtype=np.int64)
    np.cumsum([len(avgs) for avgs in runs], out=runs_at[1:])
    extended = _kernels().extend_states(
        states.data,
        states.starts[numbers],
        states.lengths[numbers],
        MAGIC_BYTES,
        np.concatenate(runs),
        runs_at,
        np.array([series.seen for _, series in taken], dtype=np.int64),
        np.array([series.model.unit for _, series in taken]),
        np.array([len(series.model.length_bits) for _, series in taken], dtype=np.int64),
        np.array([series.model.max_bits for _, series in taken]),
        length,
        sphere,
        length_one,
        GAUSS_BITS_PER_TRIAL,
        RELATIVE_SLACK,
    )
    status, out, out_at, out_end, starts_at, starts, sizes, avgs, stdevs = extended
    done = memoryview(out)
    begins, ends = out_at.tolist(), out_end.tolist()
    group_bounds = starts_at.tolist()
    all_starts, all_sizes = starts.tolist(), sizes.tolist()
    all_avgs, all_stdevs = avgs.tolist(), stdevs.tolist()
    for place, (number, series) in enumerate(taken):
        if status[place]:
            continue
        first, stop = group_bounds[place], group_bounds[place + 1]
        group_sizes = tuple(all_sizes[first:stop])
        group_avgs = tuple(all_avgs[first:stop])
        group_stdevs = tuple(all_stdevs[first:stop])
        stats = list(zip(group_sizes, group_avgs, group_stdevs, strict=True))
        bits, _ = groups_bits(series.model, stats)
        partition = Partition(
            tuple(all_starts[first:stop]), group_sizes, group_avgs, group_stdevs, bits
        )
        answers[number] = (_classified(series, partition), done[begins[place] : ends[place]])
    return answers


def _taken(samples: Any, settings: GroupingSpec, seen: int, state: memoryview) -> _Series | None:
    """The series as the batch takes it, or None where the one-by-one way must.

    What ``IncrementalClassifier.continued`` and ``_resume`` ask of a state
    and of the runs, for an exact search extended by one run or none (a
    missing one) with the same largest value: anything else it handles in
    its own ways, so it is left to it.
    """
    if not (LITTLE_ENDIAN and settings.search == "exact" and is_number_array(samples)):
        return None
    try:
        prepared = prepare_runs(samples)
    except (ValueError, TypeError):
        return None
    count = int(np.searchsorted(prepared.present, seen))
    if prepared.offset or not count or prepared.count - count > 1:
        return None
    largest = float(prepared.avgs[:count].max())
    if prepared.max_value != largest or not largest > 0.0:
        return None
    unit = calibrated_unit(samples, settings.calibration)
    try:
        resolved = resolve_unit(largest, unit, settings.sbps)
    except ValueError:
        return None
    numbers = header(state)
    if numbers is None:
        return None
    runs, trials, max_value, step, table_size, _ = numbers
    if (max_value, step) != (largest, resolved) or runs != count or trials != count:
        return None
    if not trials < table_size <= LARGEST_TABLE:
        return None
    # ExactSearch.resume: the model sized for the runs it will have
    total = prepared.count
    size = max(total, 2 * table_size) if total >= table_size else table_size - 1
    return _Series(prepared, count, unit, BitModel(largest, resolved, size), settings)


def _classified(series: _Series, partition: Partition) -> Classification:
    """:func:`.classify_prepared` of the partition found, as the classifier makes it."""
    settings = series.settings
    return classify_prepared(
        series.prepared,
        series.unit,
        settings.sbps,
        "exact",
        settings.direction,  # type: ignore[arg-type]
        searcher=lambda _runs, _model: partition,
        model=series.model,
        outlier_runs=resolve_outlier_runs(settings.outlier_runs, "exact"),
    )
