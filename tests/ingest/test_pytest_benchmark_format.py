"""The pytest-benchmark format on files pytest-benchmark writes in the test.

A tiny benchmark module runs under the real plugin (``--benchmark-json``,
in a throwaway git repository so the file has its ``commit_info``); the
reader must give what pytest-benchmark's own loader
(``pytest_benchmark.storage.file.FileStorage.load``) reads back, number for
number.  Bad input is that file edited.
"""

from __future__ import annotations

import json
import logging
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pytest_benchmark.storage.file import FileStorage

from sphinxcontrib_trending.ingest import Dataset, SourceSpec, load
from sphinxcontrib_trending.ingest.timestamps import parse_iso_or_epoch

BENCHMARKS = """
import pytest


@pytest.mark.parametrize("n", [10, 100])
def test_sum(benchmark, n):
    benchmark(sum, range(n))


@pytest.mark.benchmark(group="pedantic")
def test_fixed_rounds(benchmark):
    benchmark.extra_info["answer"] = 42
    benchmark.pedantic(sum, args=(range(5),), rounds=4, iterations=2)
"""


def _git(folder: Path, *arguments: str) -> None:
    command = ["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", *arguments]
    subprocess.run(command, cwd=folder, check=True, capture_output=True)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The JSON pytest-benchmark wrote for the tiny module."""
    folder = tmp_path_factory.mktemp("pytest-benchmark") / "tiny"
    folder.mkdir()
    (folder / "test_tiny.py").write_text(BENCHMARKS)
    _git(folder, "init", "-q", ".")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-q", "-m", "tiny")
    out = folder / "run.json"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_tiny.py"]
    command += ["--benchmark-json", str(out), "--benchmark-min-rounds=3"]
    command += ["--benchmark-max-time=0.001", "-p", "no:xdist"]
    # a worker of this run (pytest-xdist) must not make the inner run a worker too
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    subprocess.run(command, cwd=folder, check=True, capture_output=True, env=environment)
    return out


@pytest.fixture
def run_file(written: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run.json"
    copy.write_bytes(written.read_bytes())
    return copy


def _read(*paths: Path) -> Dataset:
    spec = SourceSpec(paths=tuple(str(p) for p in paths), format="pytest-benchmark", metric="time")
    return load(spec)


def _as_pytest_benchmark_loads_it(path: Path) -> dict[str, Any]:
    storage = FileStorage(path.parent, logger=logging.getLogger("pytest-benchmark"))
    ((_name, data),) = storage.load(str(path))
    return data


def test_read_value_by_value_as_pytest_benchmark_loads_it(run_file: Path) -> None:
    data = _as_pytest_benchmark_loads_it(run_file)
    dataset = _read(run_file)
    assert dataset.problems == []
    (build,) = dataset.builds
    commit = data["commit_info"]
    assert (build.job, build.dut_version, build.testbed) == (
        commit["project"],
        commit["id"],
        data["machine_info"]["node"],
    )
    assert build.time == parse_iso_or_epoch(data["datetime"])
    assert [test.test_id for test in build.tests] == [b["fullname"] for b in data["benchmarks"]]
    for test, benchmark in zip(build.tests, data["benchmarks"], strict=True):
        stats = benchmark["stats"]
        values = {m.metric: tuple(m.values) for m in test.measurements}
        assert values["time"] == tuple(stats["data"])
        assert {metric: values[metric] for metric in values if metric != "time"} == {
            "time_min": (stats["min"],),
            "time_max": (stats["max"],),
            "time_mean": (stats["mean"],),
            "time_median": (stats["median"],),
            "time_stddev": (stats["stddev"],),
            "time_iqr": (stats["iqr"],),
            "ops": (stats["ops"],),
        }
        assert (test.name, test.status) == (benchmark["name"], "PASS")
    fixed = build.tests[-1]
    assert len(fixed.measurement("time").values) == 4  # pedantic: four rounds
    assert (fixed.tags, fixed.attribute("extra_answer")) == (("pedantic",), "42")


def test_without_raw_rounds_the_mean_is_the_one_trial(run_file: Path) -> None:
    data = json.loads(run_file.read_text())
    for benchmark in data["benchmarks"]:
        del benchmark["stats"]["data"]
    run_file.write_text(json.dumps(data))
    (build,) = _read(run_file).builds
    means = [b["stats"]["mean"] for b in data["benchmarks"]]
    assert [tuple(t.measurement("time").values) for t in build.tests] == [(m,) for m in means]


def _edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("content", "complaint"),
    [
        (lambda text: text[: len(text) // 2], "not JSON"),
        (lambda text: json.dumps({"version": 2, "results": {}}), "not a pytest-benchmark file"),
        (lambda text: json.dumps([1, 2]), "not a pytest-benchmark file"),
    ],
)
def test_an_unreadable_file_is_named_and_the_others_read(
    run_file: Path, tmp_path: Path, content: Any, complaint: str
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text(content(run_file.read_text()))
    dataset = _read(run_file, broken)
    (problem,) = dataset.problems
    assert problem.origin == str(broken) and complaint in problem.message
    assert [build.origin for build in dataset.builds] == [str(run_file)]


def test_a_benchmark_without_stats_is_named_and_the_rest_read(run_file: Path) -> None:
    _edit(run_file, lambda data: data["benchmarks"][0].pop("stats"))
    dataset = _read(run_file)
    (problem,) = dataset.problems
    assert problem.origin == str(run_file) and "benchmark 0: no name or no stats" in problem.message
    assert len(dataset.builds[0].tests) == 2


def test_nan_and_infinite_statistics_are_left_out_and_named(run_file: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        data["benchmarks"][0]["stats"]["max"] = math.nan
        data["benchmarks"][1]["stats"]["ops"] = math.inf

    _edit(run_file, change)
    dataset = _read(run_file)
    assert [p.origin for p in dataset.problems] == [str(run_file)] * 2
    assert all("the measurement is left out" in p.message for p in dataset.problems)
    first, second, _ = dataset.builds[0].tests
    assert first.measurement("time_max") is None and first.measurement("time") is not None
    assert second.measurement("ops") is None


def test_a_folder_of_saved_runs_is_one_build_per_run_in_time_order(
    run_file: Path, tmp_path: Path
) -> None:
    """As ``--benchmark-autosave`` keeps them: ``.benchmarks/<machine>/0001_<commit>_<time>.json``;
    the older run's time is naive, as pytest-benchmark before 4 wrote it (UTC)."""
    saved = tmp_path / ".benchmarks" / "Linux-CPython-3.11-64bit"
    saved.mkdir(parents=True)
    data = json.loads(run_file.read_text())
    later = saved / "0002_abc_20240502_120000.json"
    later.write_text(json.dumps(data | {"datetime": "2024-05-02T12:00:00+00:00"}))
    earlier = saved / "0001_abc_20240501_120000.json"
    earlier.write_text(json.dumps(data | {"datetime": "2024-05-01T12:00:00"}))
    dataset = _read(tmp_path / ".benchmarks")
    assert dataset.problems == []
    assert [build.origin for build in dataset.builds] == [str(earlier), str(later)]
    assert dataset.builds[0].build == "20240501T120000Z"


def test_null_statistics_are_named_and_the_rest_read(run_file: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        data["benchmarks"][0]["stats"]["max"] = None
        data["benchmarks"][0]["stats"]["data"][0] = None

    _edit(run_file, change)
    dataset = _read(run_file)
    (problem,) = dataset.problems
    first, second, _ = dataset.builds[0].tests
    assert problem.origin == str(run_file)
    assert problem.message == (
        f"{first.test_id}: null stats.max, rounds in stats.data; those measurements are left out"
    )
    assert first.measurement("time_max") is None
    (time,) = [m for m in first.measurements if m.metric == "time"]
    assert len(time.values) == 1  # the mean stands for the rounds
    assert second.measurement("time_max") is not None


def test_a_file_of_a_newer_pytest_benchmark_is_read_with_a_note(run_file: Path) -> None:
    _edit(run_file, lambda data: data.update(version="7.1.0"))
    dataset = _read(run_file)
    (problem,) = dataset.problems
    assert problem.origin == str(run_file)
    assert "written by pytest-benchmark 7.1.0, newer than this reader knows" in problem.message
    assert len(dataset.builds[0].tests) == 3
