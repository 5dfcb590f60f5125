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

import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real

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


def prepare_runs(runs: Sequence[Run]) -> PreparedRuns:
    """Validate ``runs`` and reduce each present run to (size, avg, stdev).

    A trial list loses its NaN trials; it is missing only if none is left.

    Raises:
        ValueError: a value is infinite or its magnitude above
            :data:`LARGEST_VALUE` (the message names the run).
        TypeError: a run is neither a number, a sequence of numbers nor None.
    """
    values: list[float] = []  # every value, run after run
    owners: list[int] = []  # per run with values: its index
    lengths: list[int] = []
    trial_lists = False
    for index, run in enumerate(runs):
        if type(run) is float or (isinstance(run, Real) and not isinstance(run, bool)):
            values.append(float(run))
            lengths.append(1)
        elif run is not None:
            trials = _trial_list(index, run)
            values.extend(trials)
            lengths.append(len(trials))
            trial_lists = True
        else:
            continue
        owners.append(index)
    flat = np.array(values, dtype=np.float64)
    owner_of = np.array(owners, dtype=np.int64)
    # one check over every value: per run it costs more than the whole grouping
    _check_values(flat, np.repeat(owner_of, lengths))
    if trial_lists:
        present, sizes, avgs, stdevs, kept = _trial_statistics(flat, owner_of, lengths)
    else:
        usable = ~np.isnan(flat)
        present = owner_of[usable]
        avgs = kept = flat[usable]
        sizes = np.ones(len(avgs), dtype=np.int64)
        stdevs = np.zeros(len(avgs))
    max_value = float(kept.max()) if len(kept) else 0.0
    min_value = float(kept.min()) if len(kept) else 0.0
    offset = min(float(min_value), 0.0)
    if offset < 0.0:
        avgs = avgs - offset
        max_value = max_value - offset
    present_set = set(present.tolist())
    return PreparedRuns(
        run_count=len(runs),
        present=present,
        sizes=sizes,
        avgs=avgs,
        stdevs=stdevs,
        max_value=float(max_value),
        missing=tuple(index for index in range(len(runs)) if index not in present_set),
        offset=offset,
    )


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


def _check_values(values: npt.NDArray[np.float64], run_index: npt.NDArray[np.int64]) -> None:
    """Infinite or huge values are errors; the message names the first bad run."""
    with np.errstate(invalid="ignore"):
        bad = np.abs(values) > LARGEST_VALUE
    if not bad.any():
        return
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
    run_of = np.repeat(np.arange(len(lengths)), lengths)
    usable = ~np.isnan(flat)
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
