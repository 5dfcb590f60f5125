"""Turn the caller's runs into the per-run statistics the grouping works on.

A run is one number or the trials of one test run.  The reference library
reduces a trial list to (size, average, population stdev) with a one-trial-at-a-
time Welford update before grouping; doing the same here, in the same order of
floating-point operations, is what lets ``search="jumpavg"`` reproduce its bit
counts exactly.  Missing runs (``None``, NaN, empty or all-NaN trial lists) are
set aside but keep their index, so group boundaries are reported in the caller's
own run numbering.

The bit model encodes values on ``[0, M]``.  Any finite value is accepted:
when the smallest trial is negative, every value is shifted up by it (the
smallest becomes 0, ``M`` becomes the range) and :attr:`PreparedRuns.offset`
records the shift for the caller to take back.  Non-negative input is never
shifted, so it is grouped exactly as the reference groups it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real
from typing import overload

import numpy as np
import numpy.typing as npt

from sphinxcontrib_trending.ingest.trials import Trials

Run = float | Sequence[float] | None

LARGEST_VALUE = 1e100
"""Larger magnitudes are refused: squared deviations times trial counts would overflow."""


@dataclass(frozen=True)
class PreparedRuns:
    """The present (non-missing) runs in order, reduced to their statistics."""

    run_count: int
    present: npt.NDArray[np.int64]
    """Original index of each present run."""
    sizes: npt.NDArray[np.int64]
    """Trial count of each present run."""
    avgs: npt.NDArray[np.float64]
    """Run averages, shifted up by ``-offset``."""
    stdevs: npt.NDArray[np.float64]
    max_value: float
    """Largest shifted trial value over every present run (0.0 when there is none)."""
    missing: tuple[int, ...]
    offset: float = 0.0
    """The smallest trial when it is negative, else 0.0: add it to a shifted
    average to get the value in the caller's terms."""

    @property
    def count(self) -> int:
        return len(self.present)


class RunStatistics(Sequence[tuple[int, float, float]]):
    """(size, avg, stdev) of each present run as Python numbers, read when asked for.

    The outlier stage looks at a few runs around each candidate; a list of
    these tuples for every run took 2.5 MiB at 20,000 runs, more than the exact
    search's whole state, and held it through the outlier stage.
    """

    def __init__(self, prepared: PreparedRuns) -> None:
        self._sizes = prepared.sizes
        self._avgs = prepared.avgs
        self._stdevs = prepared.stdevs

    def __len__(self) -> int:
        return len(self._sizes)

    @overload
    def __getitem__(self, index: int) -> tuple[int, float, float]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, float, float]]: ...

    def __getitem__(
        self, index: int | slice
    ) -> tuple[int, float, float] | list[tuple[int, float, float]]:
        if isinstance(index, slice):
            return [self[position] for position in range(*index.indices(len(self)))]
        return (
            int(self._sizes[index]),
            self._avgs[index].item(),
            self._stdevs[index].item(),
        )


def prepare_runs(runs: Sequence[Run]) -> PreparedRuns:
    """Validate ``runs`` and reduce each present run to (size, avg, stdev).

    A trial list loses its NaN trials; it is missing only if none is left.

    Raises:
        ValueError: a value is infinite or its magnitude above
            :data:`LARGEST_VALUE` (the message names the run).
        TypeError: a run is neither a number, a sequence of numbers nor None.
    """
    if is_number_array(runs):
        return _prepare_numbers(runs)  # type: ignore[arg-type]
    gathered = _gather_floats(runs)
    if gathered is None:
        gathered = _gather(runs)
    values, owners, lengths, absent, trial_lists = gathered
    flat = np.array(values, dtype=np.float64)
    owner_of = np.array(owners, dtype=np.int64)
    # one check over every value: per run it costs more than the whole grouping
    _check_values(flat, owner_of, lengths)
    if trial_lists:
        present, sizes, avgs, stdevs, kept = _trial_statistics(flat, owner_of, lengths)
    else:
        usable = ~np.isnan(flat)
        if usable.all():  # the common case: no copies (the exact search keeps these)
            present, avgs = owner_of, flat
        else:
            present, avgs = owner_of[usable], flat[usable]
        kept = avgs
        sizes = np.ones(len(avgs), dtype=np.int64)
        stdevs = np.zeros(len(avgs))
    max_value = float(kept.max()) if len(kept) else 0.0
    min_value = float(kept.min()) if len(kept) else 0.0
    offset = min(float(min_value), 0.0)
    if offset < 0.0:
        avgs = avgs - offset
        max_value = max_value - offset
    if len(present) == len(owners):  # no run lost all its values to NaN
        missing = tuple(absent)
    else:
        present_set = set(present.tolist())
        missing = tuple(index for index in range(len(runs)) if index not in present_set)
    return PreparedRuns(
        run_count=len(runs),
        present=present,
        sizes=sizes,
        avgs=avgs,
        stdevs=stdevs,
        max_value=float(max_value),
        missing=missing,
        offset=offset,
    )


def is_number_array(runs: Sequence[Run]) -> bool:
    """Whether ``runs`` are one array of doubles, a number per run (NaN where missing)."""
    return isinstance(runs, np.ndarray) and runs.dtype == np.float64 and runs.ndim == 1


def _prepare_numbers(runs: npt.NDArray[np.float64]) -> PreparedRuns:
    """:func:`prepare_runs` of one number per run given as an array, NaN where missing.

    What a grouping job holds (:class:`~.many.SeriesJob`): its runs are
    prepared by a few whole-array operations, the same numbers as the list
    of them (``None`` for NaN) gives.
    """
    max_value = min_value = 0.0
    largest = float(runs.max()) if len(runs) else 0.0
    if largest == largest:  # no NaN: every run measured, its numbers kept as they are
        present, avgs, missing = np.arange(len(runs)), runs, ()
        if len(runs):
            max_value, min_value = largest, float(runs.min())
    else:
        absent = np.isnan(runs)
        present = np.flatnonzero(~absent)
        avgs = runs[present]
        missing = tuple(np.flatnonzero(absent).tolist())
        if len(avgs):
            max_value, min_value = float(avgs.max()), float(avgs.min())
    if max(max_value, -min_value) > LARGEST_VALUE:  # an infinite value too: names the run
        _check_values(avgs, present, [1] * len(avgs))
    offset = min(min_value, 0.0)
    if offset < 0.0:
        avgs = avgs - offset
        max_value = max_value - offset
    return PreparedRuns(
        run_count=len(runs),
        present=present,
        sizes=np.ones(len(avgs), dtype=np.int64),
        avgs=avgs,
        stdevs=np.zeros(len(avgs)),
        max_value=max_value,
        missing=missing,
        offset=offset,
    )


_Gathered = tuple[list[float], list[int], list[int], list[int], bool]
"""Every value run after run, the index of each run with values, their counts, the
indices of the ``None`` runs, and whether any run is a trial list."""


def _gather_floats(runs: Sequence[Run]) -> _Gathered | None:
    """:func:`_gather` of a history of floats or of trial lists of floats, with missing
    runs as ``None`` (what every reader gives); None for any other input.

    Types are checked once over all the runs and values, and the values
    gathered by whole-list operations: a check per run cost as much as the
    statistics of the whole history.
    """
    kinds = set(map(type, runs))
    kinds.discard(type(None))
    absent = [index for index, run in enumerate(runs) if run is None]
    if absent:
        owners = [index for index, run in enumerate(runs) if run is not None]
        found = [runs[index] for index in owners]
    else:
        owners = list(range(len(runs)))
        found = list(runs)
    if kinds <= {float}:
        return found, owners, [1] * len(found), absent, False  # type: ignore[return-value]
    if not kinds <= {tuple, list, Trials}:
        return None
    values = list(itertools.chain.from_iterable(found))  # type: ignore[arg-type]
    if not set(map(type, values)) <= {float}:
        return None
    return values, owners, list(map(len, found)), absent, True  # type: ignore[arg-type]


def _gather(runs: Sequence[Run]) -> _Gathered:
    """The values of ``runs`` as floats, any number or sequence of numbers accepted."""
    values: list[float] = []
    owners: list[int] = []
    lengths: list[int] = []
    absent: list[int] = []
    trial_lists = False
    for index, run in enumerate(runs):
        if type(run) is float or (isinstance(run, Real) and not isinstance(run, bool)):
            values.append(float(run))  # type: ignore[arg-type]
            lengths.append(1)
        elif run is not None:
            trials = _trial_list(index, run)
            values.extend(trials)
            lengths.append(len(trials))
            trial_lists = True
        else:
            absent.append(index)
            continue
        owners.append(index)
    return values, owners, lengths, absent, trial_lists


def _trial_list(index: int, run: object) -> list[float]:
    """The trials of run ``index`` as floats, NaN kept (dropped later); types checked."""
    if type(run) is Trials or (
        type(run) in (tuple, list) and all(type(trial) is float for trial in run)
    ):
        return list(run)  # what every reader gives: nothing to convert or check
    if isinstance(run, (str, bytes)) or not isinstance(run, (Sequence, np.ndarray)):
        raise TypeError(f"run {index}: expected a number or a sequence of numbers, got {run!r}")
    trials = []
    for trial_index, trial in enumerate(run):
        if not isinstance(trial, Real) or isinstance(trial, bool):
            raise TypeError(f"run {index}, trial {trial_index}: expected a number, got {trial!r}")
        trials.append(float(trial))
    return trials


def _check_values(
    values: npt.NDArray[np.float64], owner_of: npt.NDArray[np.int64], lengths: list[int]
) -> None:
    """Infinite or huge values are errors; the message names the first bad run.

    ``values`` holds the values of the runs ``owner_of`` one run after the
    other, ``lengths`` how many each has.
    """
    magnitudes = np.abs(values)
    if not np.fmax.reduce(magnitudes, initial=0.0) > LARGEST_VALUE:  # NaN ignored
        return
    with np.errstate(invalid="ignore"):
        bad = magnitudes > LARGEST_VALUE
    run_index = np.repeat(owner_of, lengths)
    first = int(np.argmin(np.where(bad, run_index, np.iinfo(np.int64).max)))
    value = float(values[first])
    if math.isinf(value):
        problem = "infinite value"
    else:
        problem = f"value {value!r} is beyond the supported +-{LARGEST_VALUE:g}"
    raise ValueError(f"run {int(run_index[first])}: {problem}")


def _trial_statistics(
    flat: npt.NDArray[np.float64], owner_of: npt.NDArray[np.int64], lengths: list[int]
) -> tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
]:
    """Present runs, their sizes, averages and stdevs, and every kept (non-NaN) trial.

    ``flat`` holds the trials of the runs ``owner_of`` one run after the
    other, ``lengths`` how many each has.
    """
    usable = ~np.isnan(flat)
    width = lengths[0]
    if width and lengths.count(width) == len(lengths) and usable.all():
        # the usual history: as many trials in every run, none NaN
        sizes = np.full(len(lengths), width, dtype=np.int64)
        if len(lengths) <= FEW_RUNS:
            avgs, stdevs = _welford_of_few_runs(flat.tolist(), width)
        else:
            avgs, stdevs = _welford_of_equal_runs(flat.reshape(len(lengths), width).T)
        return owner_of, sizes, avgs, stdevs, flat
    run_of = np.repeat(np.arange(len(lengths)), lengths)
    kept, run_of = flat[usable], run_of[usable]
    counts = np.bincount(run_of, minlength=len(lengths))
    measured = counts > 0
    # the kept trials as a [trial position, run] table of the runs left
    column = np.cumsum(measured) - 1
    first = np.cumsum(counts) - counts
    table = np.zeros((int(counts.max(initial=0)), int(measured.sum())))
    table[np.arange(len(kept)) - first[run_of], column[run_of]] = kept
    sizes = counts[measured].astype(np.int64)
    avgs, stdevs = _welford_by_trial(table, sizes)
    return owner_of[measured], sizes, avgs, stdevs, kept


def _welford_by_trial(
    table: npt.NDArray[np.float64], sizes: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Average and population stdev of each run, trial by trial in input order.

    ``table[position, run]`` is a run's trial at that position (its first
    ``sizes[run]`` rows).  Vectorised across runs (one pass per trial
    position) but with exactly the per-trial update of the reference, so
    the results are bit-identical to it.
    """
    count = table.shape[1]
    size = np.zeros(count)
    avg = np.zeros(count)
    moment = np.zeros(count)
    for position in range(table.shape[0]):
        active = sizes > position
        old_size = size.copy()
        delta = table[position] - avg
        size = np.where(active, size + 1.0, size)
        avg = np.where(active, avg + delta / size, avg)
        moment = np.where(active, moment + delta * delta * old_size / size, moment)
    return avg, np.sqrt(moment / np.maximum(size, 1.0))


FEW_RUNS = 4
"""Up to this many runs (the new runs of a daily build), a loop over the trials in
Python costs less than the numpy calls of a pass per trial position."""


def _welford_of_few_runs(
    values: list[float], width: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """:func:`_welford_by_trial` of runs of ``width`` trials each, ``values`` one run after
    the other: the same operations in the same order on Python floats, which round
    as numpy's do."""
    avgs, stdevs = [], []
    for first in range(0, len(values), width):
        size = avg = moment = 0.0
        for value in values[first : first + width]:
            old_size = size
            size += 1.0
            delta = value - avg
            avg = avg + delta / size
            moment = moment + delta * delta * old_size / size
        avgs.append(avg)
        stdevs.append(math.sqrt(moment / size))
    return np.array(avgs), np.array(stdevs)


def _welford_of_equal_runs(
    table: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """:func:`_welford_by_trial` of runs that all fill every row of ``table``.

    The same operations on the same values, with the trial count a scalar
    and no masks: a third of the numpy calls.
    """
    size = 0.0
    avg = np.zeros(table.shape[1])
    moment = np.zeros(table.shape[1])
    for row in table:
        old_size = size
        size += 1.0
        delta = row - avg
        avg = avg + delta / size
        moment = moment + delta * delta * old_size / size
    return avg, np.sqrt(moment / size)
