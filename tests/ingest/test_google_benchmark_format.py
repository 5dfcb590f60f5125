"""The Google Benchmark format on files the ``google_benchmark`` bindings write in the test.

The bindings run the C++ library, which writes the JSON: a plain
benchmark, one with arguments, repetitions, aggregates and counters, and
one that reports an error.  The library ships no loader of its JSON (its
``tools/compare.py`` is not in the package), so the file itself, read with
``json``, is what the reader is compared with, value by value.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sphinxcontrib_trending.ingest import Dataset, SourceSpec, load
from sphinxcontrib_trending.ingest.timestamps import parse_iso_or_epoch

BENCHMARKS = """
import google_benchmark as benchmark
from google_benchmark import Counter


@benchmark.register
def sum_small(state):
    while state:
        sum(range(10))


@benchmark.register
@benchmark.option.arg(8)
@benchmark.option.arg(64)
@benchmark.option.repetitions(3)
def sum_n(state):
    n = state.range(0)
    while state:
        sum(range(n))
    state.counters["items"] = Counter(n, Counter.kIsRate)
    state.bytes_processed = n * 8 * state.iterations


@benchmark.register
def fails(state):
    while state:
        state.skip_with_error("no such device")
        break


if __name__ == "__main__":
    benchmark.main()
"""


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("google-benchmark")
    (folder / "tiny_bench.py").write_text(BENCHMARKS)
    out = folder / "run.json"
    command = [sys.executable, "tiny_bench.py", f"--benchmark_out={out}"]
    command += ["--benchmark_out_format=json", "--benchmark_min_time=0.001s"]
    command += ["--benchmark_context=commit=0123abc"]
    subprocess.run(command, cwd=folder, check=True, capture_output=True)
    return out


@pytest.fixture
def run_file(written: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run.json"
    copy.write_bytes(written.read_bytes())
    return copy


def _read(*paths: Path) -> Dataset:
    spec = SourceSpec(paths=tuple(str(p) for p in paths), format="google-benchmark")
    return load(spec)


def test_read_value_by_value_from_the_file_the_library_wrote(run_file: Path) -> None:
    data = json.loads(run_file.read_text())
    dataset = _read(run_file)
    assert dataset.problems == []
    (build,) = dataset.builds
    context = data["context"]
    assert (build.job, build.dut_version) == ("tiny_bench.py", "0123abc")
    assert build.testbed == context["host_name"]
    assert build.time == parse_iso_or_epoch(context["date"])
    tests = {test.test_id: test for test in build.tests}
    assert list(tests) == ["sum_small", "sum_n/8/repeats:3", "sum_n/64/repeats:3", "fails"]
    for name in ("sum_n/8/repeats:3", "sum_n/64/repeats:3"):
        runs = [b for b in data["benchmarks"] if b["run_name"] == name]
        repetitions = [b for b in runs if b["run_type"] == "iteration"]
        values = {m.metric: (m.unit, tuple(m.values)) for m in tests[name].measurements}
        for metric, unit in (("real_time", "ns"), ("cpu_time", "ns"), ("items", "")):
            assert values[metric] == (unit, tuple(b[metric] for b in repetitions))
        assert values["bytes_per_second"][0] == "bytes/s"
        for aggregate in (b for b in runs if b["run_type"] == "aggregate"):
            metric = f"cpu_time_{aggregate['aggregate_name']}"
            assert values[metric][1] == (aggregate["cpu_time"],)
        assert values["real_time_cv"][0] == "ratio"
    failed = tests["fails"]
    assert (failed.status, failed.message, failed.measurements) == ("FAIL", "no such device", ())


def _edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_a_skipped_benchmark_is_a_skipped_test(run_file: Path) -> None:
    def skip(data: dict[str, Any]) -> None:
        data["benchmarks"][0] = {
            "name": "sum_small",
            "run_name": "sum_small",
            "run_type": "iteration",
            "skipped": True,
            "skip_message": "needs AVX-512",
        }

    _edit(run_file, skip)
    (build,) = _read(run_file).builds
    assert (build.tests[0].status, build.tests[0].message) == ("SKIP", "needs AVX-512")


@pytest.mark.parametrize(
    ("content", "complaint"),
    [
        (lambda text: text[: len(text) // 2], "not JSON"),
        (lambda text: json.dumps({"benchmarks": []}), "not a Google Benchmark file"),
        (
            lambda text: text.replace('"json_schema_version": 1', '"json_schema_version": 2'),
            "JSON schema version 2 is newer than this reader knows",
        ),
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


@pytest.mark.parametrize(
    ("spoilt", "kept", "value", "shown"),
    [("cpu_time", "real_time", math.nan, "nan"), ("real_time", "cpu_time", math.inf, "inf")],
)
def test_times_that_are_not_finite_are_left_out_and_named(
    run_file: Path, spoilt: str, kept: str, value: float, shown: str
) -> None:
    _edit(run_file, lambda data: data["benchmarks"][0].update({spoilt: value}))
    dataset = _read(run_file)
    (problem,) = dataset.problems
    assert problem.origin == str(run_file)
    assert f"sum_small: {spoilt} value {shown}" in problem.message
    small = dataset.builds[0].tests[0]
    assert small.measurement(spoilt) is None and small.measurement(kept) is not None


def test_null_times_are_named_and_the_rest_read(run_file: Path) -> None:
    _edit(run_file, lambda data: data["benchmarks"][0].update(cpu_time=None))
    dataset = _read(run_file)
    (problem,) = dataset.problems
    assert problem.origin == str(run_file)
    assert problem.message == (
        "benchmark 0: sum_small: null cpu_time; those measurements are left out"
    )
    small, *others = dataset.builds[0].tests
    assert small.measurement("cpu_time") is None and small.measurement("real_time") is not None
    passed = [test for test in others if test.status == "PASS"]
    assert passed and all(test.measurement("cpu_time") is not None for test in passed)
