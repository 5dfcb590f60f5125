"""The held-out check: four public projects' asv results, read value by value against asv.

asv's own loader (``asv.results.iter_results``, ``Results.get_result_keys``,
``get_result_value``, ``get_result_samples``, the names ``asv compare``
prints) says what ``asv publish`` shows of each results file; the asv
source must yield exactly that, test for test and number for number.  The
FlowKit tree is in asv's old layout (file version 1): asv reads it only
after ``asv update`` rewrites it, so asv reads an updated copy while the
reader reads the original files.
"""

from __future__ import annotations

import itertools
import json
import math
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest

from sphinxcontrib_trending.ingest import SourceSpec, load
from tests.shared_data import SHARED_DATA

asv_results = pytest.importorskip("asv.results")
asv_compare = pytest.importorskip("asv.commands.compare")

PROJECTS = ("django-asv", "blas-benchmarks", "flowkit-benchmarks", "parcels-benchmarks")

Expected = dict[tuple[str, str, str], tuple[str, tuple[float, ...]]]
"""(machine, commit, test id) -> (status, trials)."""


def _unpacked(project: str, into: Path) -> Path:
    with tarfile.open(SHARED_DATA / "asv_results" / f"{project}.tar.xz") as archive:
        archive.extractall(into, filter="data")
    return into / project / "results"


def _as_asv_reads_it(results: Path, into: Path) -> Path:
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


def _what_asv_shows(results: Path) -> Expected:
    benchmarks: dict[str, Any] = json.loads((results / "benchmarks.json").read_text())
    expected: Expected = {}
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
            named = asv_compare.unroll_result(key, params, values, samples)
            for combination, (name, value, kept) in zip(combinations, named, strict=True):
                if combination not in measured:
                    continue
                status = _status(value)
                trials = tuple(kept or (value,)) if status == "PASS" else ()
                test_id = f"{name} [{run.env_name}]"
                expected[(machine, run.commit_hash, test_id)] = (status, trials)
    return expected


def _what_we_read(results: Path) -> tuple[Expected, list[str]]:
    dataset = load(SourceSpec(paths=(str(results),), format="asv", metric="time"))
    found: Expected = {}
    for build in dataset.builds:
        for test in build.tests:
            trials = tuple(m.values for m in test.measurements)
            assert len(trials) <= 1
            key = (build.testbed or "", build.build, test.test_id)
            assert key not in found
            found[key] = (test.status, tuple(trials[0]) if trials else ())
    return found, [str(problem) for problem in dataset.problems]


@pytest.mark.shared_data("asv_results")
@pytest.mark.parametrize("project", PROJECTS)
def test_every_result_asv_would_publish_and_nothing_else(project: str, tmp_path: Path) -> None:
    results = _unpacked(project, tmp_path)
    expected = _what_asv_shows(_as_asv_reads_it(results, tmp_path))
    found, problems = _what_we_read(results)
    assert expected, "asv shows nothing: the check would be empty"
    assert found.keys() == expected.keys()
    assert found == expected
    assert all("does not list" in problem for problem in problems), problems
