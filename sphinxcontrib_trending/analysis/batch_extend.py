"""Extending a batch of saved searches by a run each, in one compiled call.

:func:`extend_batch` takes what :func:`.many.extend_job` takes for each
series of a batch and gives the same grouping and new state, but for the
search itself: every state is decoded, checked, extended, backtracked and
encoded again by :func:`.batch_kernels.extend_states` in one call for the
whole batch, and the batch's runs are prepared together (:class:`_BatchRuns`).
What stays per series is what needs Python anyway: the bit model, pricing
the partition found with the reference's exact formula, and classifying it
(outliers, confidences).

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
from sphinxcontrib_trending.analysis.runs import LARGEST_VALUE, PreparedRuns, is_number_array
from sphinxcontrib_trending.analysis.saved_search import HEADER_END, MAGIC

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


class _BatchRuns:
    """The batch's histories of numbers prepared together: :func:`.prepare_runs` of each,
    as views of a few arrays made by whole-batch operations (preparing them one by one
    was the largest part of the batch's time left in Python).

    Per series: its present runs (``present``, ``avgs`` from ``at[i]`` to
    ``at[i + 1]``), those among the first ``seen[i]`` (``seen_present``), the
    largest value of those and of all, and whether a value is too large or
    negative (then :func:`.prepare_runs` raises or shifts it: left to it).
    """

    def __init__(self, histories: Sequence[np.ndarray], seen: Sequence[int]) -> None:
        lengths = np.array([len(values) for values in histories], dtype=np.int64)
        offsets = np.zeros(len(histories) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        values = np.concatenate(histories) if histories else np.zeros(0)
        absent = np.isnan(values)
        present = np.flatnonzero(~absent)
        missing = np.flatnonzero(absent)
        self.at = np.searchsorted(present, offsets)
        owners = np.searchsorted(offsets, present, side="right") - 1
        self.present = present - offsets[owners]
        self.avgs = values[present]
        self.sizes = np.ones(len(present), dtype=np.int64)
        self.stdevs = np.zeros(len(present))
        owners = np.searchsorted(offsets, missing, side="right") - 1
        self.missing = (missing - offsets[owners]).tolist()
        self.missing_at = np.searchsorted(missing, offsets).tolist()
        self.lengths = lengths.tolist()
        starts = self.at[:-1]
        counts = np.diff(self.at)
        seen_present = np.searchsorted(present, offsets[:-1] + np.asarray(seen)) - starts
        # the largest value among the first seen runs and among all, the smallest of all
        # (a series with none is left out, so what its empty stretches give is never read)
        padded = np.append(self.avgs, 0.0)
        bounds = np.stack((starts, starts + seen_present), axis=1).ravel()
        first = np.maximum.reduceat(padded, bounds)[::2]
        bounds = np.stack((starts, starts + counts), axis=1).ravel()
        largest = np.maximum.reduceat(padded, bounds)[::2]
        smallest = np.minimum.reduceat(padded, bounds)[::2]
        huge = np.abs(self.avgs) > LARGEST_VALUE
        huge |= np.isinf(self.avgs)
        too_large = np.zeros(len(histories), dtype=np.bool_)
        too_large[np.searchsorted(self.at, np.flatnonzero(huge), side="right") - 1] = True
        usable = (counts > 0) & ~too_large & (smallest >= 0.0)
        self.usable = usable.tolist()
        self.seen_present = seen_present.tolist()
        self.first_largest = first.tolist()
        self.largest = largest.tolist()
        self.bounds = self.at.tolist()

    def prepared(self, number: int) -> PreparedRuns:
        """:func:`.prepare_runs` of history ``number`` (a usable one)."""
        low, high = self.bounds[number], self.bounds[number + 1]
        return PreparedRuns(
            run_count=self.lengths[number],
            present=self.present[low:high],
            sizes=self.sizes[low:high],
            avgs=self.avgs[low:high],
            stdevs=self.stdevs[low:high],
            max_value=self.largest[number],
            missing=tuple(self.missing[self.missing_at[number] : self.missing_at[number + 1]]),
        )


class _Headers:
    """The numbers of the batch's states' headers, read together; ``valid[i]`` False where
    a state is too short to hold one or is not a state (those are left out)."""

    def __init__(self, states: StateBuffer, slots: Sequence[int]) -> None:
        chosen = np.asarray(slots, dtype=np.int64)
        starts = states.starts[chosen]
        whole = states.lengths[chosen] >= HEADER_END
        width = len(MAGIC) + _NUMBERS_WIDTH
        head = states.data[starts[whole][:, None] + np.arange(width)]
        valid = np.zeros(len(chosen), dtype=np.bool_)
        valid[whole] = (head[:, : len(MAGIC)] == MAGIC_BYTES).all(axis=1)
        numbers = np.ascontiguousarray(head[:, len(MAGIC) :])
        found = np.zeros((len(chosen), _NUMBERS_WIDTH // 8), dtype=np.int64)
        found[whole] = numbers.view("<i8")
        self.valid = valid.tolist()
        self.integers = found.tolist()
        self.floats = found.view("<f8").tolist()


_NUMBERS_WIDTH = 48
"""The header's six numbers (runs, trials, max_value, unit, table_size, block), eight bytes each."""


def extend_batch(
    jobs: Sequence[Any], seen: Sequence[int], states: StateBuffer, slots: Sequence[int]
) -> list[Extended | None]:
    """Per job, what :func:`.many.extend_job` gives of it, its saved search having seen
    ``seen`` of its runs (``states.slot(slots[number])``), or None where it is left to it
    (see the module's description); the state as bytes already."""
    answers: list[Extended | None] = [None] * len(jobs)
    numbers = [
        number
        for number, job in enumerate(jobs)
        if LITTLE_ENDIAN and job.settings.search == "exact" and is_number_array(job.samples)
    ]
    if not numbers:
        return answers
    runs = _BatchRuns([jobs[number].samples for number in numbers], [seen[n] for n in numbers])
    heads = _Headers(states, [slots[number] for number in numbers])
    taken: list[tuple[int, int, _Series]] = []
    for place, number in enumerate(numbers):
        series = _taken(runs, heads, place, jobs[number])
        if series is not None:
            taken.append((number, place, series))
    if not taken:
        return answers
    length, sphere, length_one = ranking_parts()  # every model of the batch made by now
    places = np.array([place for _, place, _ in taken], dtype=np.int64)
    extended = _kernels().extend_states(
        states.data,
        states.starts[np.array([slots[number] for number, _, _ in taken], dtype=np.int64)],
        states.lengths[np.array([slots[number] for number, _, _ in taken], dtype=np.int64)],
        MAGIC_BYTES,
        runs.avgs,
        runs.at[places],
        runs.at[places + 1],
        np.array([series.seen for _, _, series in taken], dtype=np.int64),
        np.array([series.model.unit for _, _, series in taken]),
        np.array([len(series.model.length_bits) for _, _, series in taken], dtype=np.int64),
        np.array([series.model.max_bits for _, _, series in taken]),
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
    for row, (number, _, series) in enumerate(taken):
        if status[row]:
            continue
        first, stop = group_bounds[row], group_bounds[row + 1]
        group_sizes = tuple(all_sizes[first:stop])
        group_avgs = tuple(all_avgs[first:stop])
        group_stdevs = tuple(all_stdevs[first:stop])
        stats = list(zip(group_sizes, group_avgs, group_stdevs, strict=True))
        bits, _ = groups_bits(series.model, stats)
        partition = Partition(
            tuple(all_starts[first:stop]), group_sizes, group_avgs, group_stdevs, bits
        )
        answers[number] = (_classified(series, partition), done[begins[row] : ends[row]])
    return answers


def _taken(runs: _BatchRuns, heads: _Headers, place: int, job: Any) -> _Series | None:
    """The series as the batch takes it, or None where the one-by-one way must.

    What ``IncrementalClassifier.continued`` and ``_resume`` ask of a state
    and of the runs, for an exact search extended by one run or none (a
    missing one) with the same largest value: anything else it handles in
    its own ways, so it is left to it.
    """
    if not (runs.usable[place] and heads.valid[place]):
        return None
    count = runs.seen_present[place]
    total = runs.bounds[place + 1] - runs.bounds[place]
    largest = runs.first_largest[place]
    if not count or total - count > 1 or runs.largest[place] != largest or not largest > 0.0:
        return None
    settings = job.settings
    unit = calibrated_unit(job.samples, settings.calibration)
    try:
        resolved = resolve_unit(largest, unit, settings.sbps)
    except ValueError:
        return None
    runs_seen, trials, _, _, table_size, _ = heads.integers[place]
    _, _, max_value, step, _, _ = heads.floats[place]
    if (max_value, step) != (largest, resolved) or runs_seen != count or trials != count:
        return None
    if not trials < table_size <= LARGEST_TABLE:
        return None
    # ExactSearch.resume: the model sized for the runs it will have
    size = max(total, 2 * table_size) if total >= table_size else table_size - 1
    model = BitModel(largest, resolved, size)
    return _Series(runs.prepared(place), count, unit, model, settings)


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
