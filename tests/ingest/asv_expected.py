"""What asv itself shows of a results folder, through asv's own loader, to compare with ours.

``asv.results.iter_results`` loads every results file as ``asv publish``
does (a folder without a valid ``machine.json`` is skipped);
``Results.get_result_keys`` keeps the benchmarks still in
``benchmarks.json`` at the same version; ``get_result_value`` and
``get_result_samples`` give each parameter combination listed now;
``asv compare``'s ``unroll_result`` names them.
"""

from __future__ import annotations

import itertools
import json
import math
import shutil
from pathlib import Path
from typing import Any

from asv import results as asv_results
from asv.commands.compare import unroll_result

from sphinxcontrib_trending.ingest import Dataset

Shown = dict[tuple[str, str, str], tuple[str, tuple[float, ...]]]
"""(machine, commit, test id) -> (status, trials)."""


def as_asv_reads_it(results: Path, into: Path) -> Path:
    """A copy asv's loader accepts: old-layout files rewritten by ``Results.update``."""
    copy = into / "for-asv"
    shutil.copytree(results, copy)
    for path in copy.glob("*/*.json"):
        if path.name != "machine.json" and json.loads(path.read_text()).get("version", 1) < 2:
            asv_results.Results.update(str(path))
    return copy


def _status(value: float | None) -> str:
    if value is None:
        return "FAIL"
    return "SKIP" if math.isnan(value) else "PASS"


def what_asv_shows(results: Path) -> Shown:
    benchmarks: dict[str, Any] = json.loads((results / "benchmarks.json").read_text())
    shown: Shown = {}
    for run in asv_results.iter_results(str(results)):
        machine = run.params["machine"]
        for key in run.get_result_keys(benchmarks):
            params = benchmarks[key]["params"]
            values = run.get_result_value(key, params)
            samples = run.get_result_samples(key, params)
            measured = set(itertools.product(*run.get_result_params(key)))
            if run._results[key] is None:  # nothing ran (asv has no public word for it)
                measured = set(itertools.product(*params))
            combinations = itertools.product(*params)
            named = unroll_result(key, params, values, samples)
            for combination, (name, value, kept) in zip(combinations, named, strict=True):
                if combination not in measured:
                    continue
                status = _status(value)
                trials = tuple(kept or (value,)) if status == "PASS" else ()
                shown[(machine, run.commit_hash, f"{name} [{run.env_name}]")] = (status, trials)
    return shown


def what_we_read(dataset: Dataset) -> Shown:
    found: Shown = {}
    for build in dataset.builds:
        for test in build.tests:
            (trials,) = [m.values for m in test.measurements] or [()]
            key = (build.testbed or "", build.build, test.test_id)
            assert key not in found
            found[key] = (test.status, tuple(trials))
    return found
