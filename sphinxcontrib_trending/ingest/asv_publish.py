"""Which asv results count, and under which names: what ``asv publish`` would show.

asv keeps every result it ever measured, also of benchmarks since removed,
changed (a new benchmark version) or re-parameterised; its site shows only
results of benchmarks still in ``benchmarks.json``, of the same version,
for parameter values still listed.  The same choice is made here, so a
trend never mixes numbers of two different benchmarks under one name.
Names are asv's own: ``module.Class.time_x`` and, for a parameterised
benchmark, each combination's values as asv prints them,
``module.Class.time_x(100, 'float')``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from sphinxcontrib_trending.ingest.asv_files import Benchmark, BenchmarkRun

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"


@dataclass(frozen=True)
class Shown:
    """One benchmark and parameter combination as asv shows it for one run.

    ``result`` is asv's number (None: failed; NaN: skipped); ``trials`` the
    raw samples where the file keeps them, else the number alone.
    """

    name: str
    benchmark: Benchmark
    status: str
    result: float | None
    trials: tuple[float, ...]


@dataclass
class Selection:
    """What one results file shows, and what of it had to be left out and why."""

    shown: list[Shown] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    """Benchmarks the file has results of but ``benchmarks.json`` no longer lists."""
    mismatched: list[str] = field(default_factory=list)
    """Benchmarks whose values do not fit their parameter lists: left out."""
    samples_dropped: list[str] = field(default_factory=list)
    """Benchmarks whose samples do not fit their values: read without samples."""
    infinite: list[str] = field(default_factory=list)
    """Tests whose result is infinite: kept as failed."""


def display_name(name: str, combination: tuple[str, ...]) -> str:
    """asv's name of one parameter combination (``asv compare`` prints the same)."""
    return f"{name}({', '.join(combination)})" if combination else name


def _status(result: float | None) -> str:
    if result is None:
        return FAIL
    if math.isnan(result):
        return SKIP
    return PASS


def select(runs: dict[str, BenchmarkRun], benchmarks: dict[str, Benchmark]) -> Selection:
    """The results asv would publish of one file, benchmark by benchmark, sorted by name."""
    selection = Selection()
    for key in sorted(runs):
        run = runs[key]
        benchmark = benchmarks.get(key)
        if benchmark is None:
            selection.unknown.append(key)
            continue
        if run.version is not None and run.version != benchmark.version:
            continue  # measured by an older version of the benchmark: asv hides it too
        _add(key, run, benchmark, selection)
    return selection


def _add(key: str, run: BenchmarkRun, benchmark: Benchmark, selection: Selection) -> None:
    combinations = list(itertools.product(*run.params))
    wanted = list(itertools.product(*benchmark.params))
    if run.values is None:  # nothing ran (a failed build): every combination failed
        for combination in wanted:
            name = display_name(key, combination)
            selection.shown.append(Shown(name, benchmark, FAIL, None, ()))
        return
    if len(run.values) != len(combinations):
        selection.mismatched.append(key)
        return
    samples = run.samples
    if samples is not None and len(samples) != len(run.values):
        selection.samples_dropped.append(key)
        samples = None
    found = {
        combination: (value, samples[index] if samples is not None else None)
        for index, (combination, value) in enumerate(zip(combinations, run.values, strict=True))
    }
    for combination in wanted:
        if combination not in found:
            continue  # a value asv lists now that this run did not measure
        value, kept = found[combination]
        name = display_name(key, combination)
        status = _status(value)
        if status == PASS and value is not None and math.isinf(value):
            selection.infinite.append(name)
            status = FAIL
        trials = (kept or (value,)) if status == PASS and value is not None else ()
        selection.shown.append(Shown(name, benchmark, status, value, tuple(trials)))
