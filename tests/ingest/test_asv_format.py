"""The asv format on results the real asv wrote in the test, and on those files broken.

Every file here comes from one ``asv run`` of :mod:`tests.ingest.asv_project`
(a module fixture, copied per test); bad input is that output edited.
"""

from __future__ import annotations

import json
import math
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.ingest import Dataset, SourceSpec, fingerprint, load
from sphinxcontrib_trending.ingest.limits import ReadLimits
from tests.ingest.asv_expected import what_asv_shows, what_we_read
from tests.ingest.asv_project import MACHINE, run_asv

SUM = "bench.Sum.time_sum"


@pytest.fixture(scope="module")
def asv_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_asv(tmp_path_factory.mktemp("asv") / "project")


@pytest.fixture
def results(asv_output: Path, tmp_path: Path) -> Path:
    """This test's own copy of the results folder asv wrote."""
    return Path(shutil.copytree(asv_output, tmp_path / "results"))


def _read(folder: Path | str) -> Dataset:
    return load(SourceSpec(paths=(str(folder),), format="asv", metric="time"))


def _results_file(results: Path) -> Path:
    (found,) = [p for p in (results / MACHINE).glob("*.json") if p.name != "machine.json"]
    return found


def _edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _column(data: dict[str, Any], name: str, column: str) -> Any:
    return data["results"][name][data["result_columns"].index(column)]


def test_read_value_by_value_as_asv_s_own_loader_reads_it(results: Path) -> None:
    dataset = _read(results)
    assert dataset.problems == []
    assert what_we_read(dataset) == what_asv_shows(results)


def test_tests_are_asv_s_benchmarks_with_their_type_unit_and_status(results: Path) -> None:
    data = json.loads(_results_file(results).read_text())
    env, commit = data["env_name"], data["commit_hash"]
    (build,) = _read(results).builds
    assert (build.job, build.build, build.dut_version, build.testbed) == (
        MACHINE,
        commit,
        commit,
        MACHINE,
    )
    assert build.time == datetime.fromtimestamp(data["date"] / 1000, tz=UTC)
    tests = {test.test_id.removesuffix(f" [{env}]"): test for test in build.tests}
    assert sorted(tests) == [
        f"{SUM}(10, 'float')",
        f"{SUM}(10, 'int')",
        f"{SUM}(100, 'float')",
        f"{SUM}(100, 'int')",
        "bench.peakmem_list",
        "bench.time_broken",
        "bench.time_plain",
        "bench.track_answer",
    ]
    assert tests[f"{SUM}(100, 'float')"].status == "SKIP"  # NotImplementedError in setup
    assert tests["bench.time_broken"].status == "FAIL"
    assert tests["bench.time_broken"].measurements == ()
    track = tests["bench.track_answer"].measurements
    assert [(m.metric, m.unit, tuple(m.values)) for m in track] == [("track", "answers", (42.0,))]
    (peak,) = tests["bench.peakmem_list"].measurements
    assert (peak.metric, peak.unit) == ("peakmem", "bytes")
    (timed,) = tests[f"{SUM}(10, 'int')"].measurements
    samples = _column(data, SUM, "samples")[0]
    assert (timed.metric, timed.unit, tuple(timed.values)) == ("time", "seconds", tuple(samples))
    assert tests[f"{SUM}(10, 'int')"].suite == "bench.Sum"
    assert tests[f"{SUM}(10, 'int')"].attribute("asv_env") == env


def test_two_environments_of_one_machine_are_two_series(results: Path) -> None:
    original = _results_file(results)
    twin = original.with_name(original.name.split("-")[0] + "-virtualenv-py3.99.json")
    shutil.copy(original, twin)
    _edit(twin, lambda data: data.update(env_name="virtualenv-py3.99"))
    dataset = _read(results)
    assert len(dataset.builds) == 1  # one commit on one machine: one build, both environments
    series = histories(dataset.builds, "time")
    plain = [h for h in series if h.test_id.startswith("bench.time_plain ")]
    assert sorted(h.test_id for h in plain) == [
        f"bench.time_plain [{json.loads(original.read_text())['env_name']}]",
        "bench.time_plain [virtualenv-py3.99]",
    ]
    assert len({h.key for h in plain}) == 2


def test_only_what_asv_publish_would_show(results: Path) -> None:
    def change(benchmarks: dict[str, Any]) -> None:
        benchmarks["bench.time_plain"]["version"] = "a newer benchmark"
        benchmarks[SUM]["params"][0] = ["10", "1000"]  # 100 no longer listed, 1000 never ran
        del benchmarks["bench.track_answer"]

    _edit(results / "benchmarks.json", change)
    dataset = _read(results)
    ids = {test.test_id.rpartition(" [")[0] for build in dataset.builds for test in build.tests}
    assert ids == {
        f"{SUM}(10, 'int')",
        f"{SUM}(10, 'float')",
        "bench.peakmem_list",
        "bench.time_broken",
    }
    assert what_we_read(dataset) == what_asv_shows(results)
    (problem,) = dataset.problems
    assert problem.origin == str(results / "benchmarks.json")
    assert "1 results file(s)" in problem.message
    assert "bench.track_answer" in problem.message and "does not list" in problem.message


def _truncate(path: Path) -> None:
    path.write_text(path.read_text()[:200])


def _newer(path: Path) -> None:
    _edit(path, lambda data: data.update(version=3))


def _foreign(path: Path) -> None:
    path.write_text(json.dumps({"name": "not asv", "values": [1, 2]}))


def _fewer_values(path: Path) -> None:
    _edit(path, lambda data: _column(data, SUM, "result").pop())


def _infinite(path: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        _column(data, "bench.time_plain", "result")[0] = math.inf

    _edit(path, change)


def _nulls(path: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        _column(data, SUM, "result")[0] = None
        _column(data, SUM, "samples")[0] = None

    _edit(path, change)


def _second_file(results: Path, break_it: Any) -> Path:
    """A second commit's results beside the good one, broken by ``break_it``."""
    original = _results_file(results)
    second = original.with_name("0123abcd-" + original.name.split("-", 1)[1])
    shutil.copy(original, second)
    _edit(second, lambda data: data.update(commit_hash="0123abcd" * 5))
    break_it(second)
    return second


@pytest.mark.parametrize(
    ("break_it", "complaint"),
    [
        (_truncate, "not JSON"),
        (_foreign, "not an asv results file"),
        (_newer, "asv results file version 3 is newer than this reader knows"),
    ],
)
def test_an_unreadable_results_file_is_named_and_the_rest_read(
    results: Path, break_it: Any, complaint: str
) -> None:
    good = _results_file(results)
    broken = _second_file(results, break_it)
    dataset = _read(results)
    (problem,) = dataset.problems
    assert problem.origin == str(broken)
    assert complaint in problem.message
    (build,) = dataset.builds
    assert build.origin == str(good) and len(build.tests) == 8


@pytest.mark.parametrize(
    ("break_it", "complaint", "left_out"),
    [
        (_fewer_values, "do not match their parameter lists, benchmark left out: " + SUM, 4),
        (_infinite, "infinite results, tests kept as failed: bench.time_plain", 0),
    ],
)
def test_bad_values_are_named_with_their_file_and_the_rest_read(
    results: Path, break_it: Any, complaint: str, left_out: int
) -> None:
    broken = _second_file(results, break_it)
    dataset = _read(results)
    (problem,) = dataset.problems
    assert problem.origin == str(broken) and complaint in problem.message
    bad = next(build for build in dataset.builds if build.origin == str(broken))
    assert len(bad.tests) == 8 - left_out


def test_an_infinite_result_keeps_its_test_as_failed(results: Path) -> None:
    _infinite(_results_file(results))
    (build,) = _read(results).builds
    (plain,) = [test for test in build.tests if test.test_id.startswith("bench.time_plain ")]
    assert (plain.status, plain.measurements) == ("FAIL", ())


def test_null_results_are_failed_tests_kept_in_place(results: Path) -> None:
    _nulls(_results_file(results))
    dataset = _read(results)
    assert dataset.problems == []
    statuses = {t.test_id.rpartition(" [")[0]: t.status for t in dataset.builds[0].tests}
    assert statuses[f"{SUM}(10, 'int')"] == "FAIL"
    assert what_we_read(dataset) == what_asv_shows(results)


def test_results_of_a_folder_without_machine_json_are_skipped_as_asv_skips_them(
    results: Path,
) -> None:
    (results / MACHINE / "machine.json").unlink()
    dataset = _read(results)
    assert dataset.builds == []
    (problem,) = dataset.problems
    assert problem.origin == str(results / MACHINE / "machine.json")
    assert "skipped, as asv skips them" in problem.message


def test_results_of_another_machine_are_named_and_skipped(results: Path) -> None:
    good = _results_file(results)
    broken = _second_file(results, lambda p: _edit(p, lambda d: d["params"].update(machine="x")))
    dataset = _read(results)
    (problem,) = dataset.problems
    assert problem.origin == str(broken) and "machine 'x'" in problem.message
    assert [build.origin for build in dataset.builds] == [str(good)]


@pytest.mark.parametrize(
    ("break_it", "complaint"),
    [(_truncate, "not JSON"), (_newer, "benchmarks.json file version 3 is newer")],
)
def test_an_unreadable_benchmarks_json_is_named(
    results: Path, break_it: Any, complaint: str
) -> None:
    break_it(results / "benchmarks.json")
    dataset = _read(results)
    assert dataset.builds == []
    (problem,) = dataset.problems
    assert problem.origin == str(results / "benchmarks.json") and complaint in problem.message


def test_a_path_that_is_not_a_results_folder_is_a_source_problem(results: Path) -> None:
    dataset = _read(results / "benchmarks.json")
    (problem,) = dataset.problems
    assert (problem.subtype, dataset.builds) == ("source", [])
    assert "results folder holding benchmarks.json" in problem.message


def test_results_in_asv_0_4_s_layout(results: Path) -> None:
    """File version 1, as asv 0.4 wrote it: one object per benchmark, versions beside."""
    data = json.loads(_results_file(results).read_text())
    columns = data["result_columns"]
    old = {key: data[key] for key in ("commit_hash", "env_name", "date", "params", "python")} | {
        "requirements": {},
        "version": 1,
        "results": {},
        "benchmark_version": {},
    }
    for name, row in data["results"].items():
        cells = dict(zip(columns, row, strict=False))
        old["results"][name] = {
            "result": cells["result"],
            "params": cells["params"],
            "samples": cells.get("samples"),
        }
        old["benchmark_version"][name] = cells["version"]
    _results_file(results).write_text(json.dumps(old))
    new = _read(results)
    assert new.problems == []
    assert what_we_read(new) == what_asv_shows(_as_written_by_asv(results, data))


def _as_written_by_asv(results: Path, data: dict[str, Any]) -> Path:
    """The results folder again with asv's own (version 2) file, for asv to read."""
    original = results.with_name("original")
    shutil.copytree(results, original)
    _results_file(original).write_text(json.dumps(data))
    return original


def test_results_older_than_asv_0_4_a_bare_number_per_benchmark(results: Path) -> None:
    data = json.loads(_results_file(results).read_text())
    oldest = {key: data[key] for key in ("commit_hash", "date", "params", "python")}
    oldest |= {"requirements": {}, "version": 1, "results": {"bench.time_plain": 1.5e-6}}
    _results_file(results).write_text(json.dumps(oldest))
    (build,) = _read(results).builds
    (test,) = build.tests
    env = _results_file(results).stem.split("-", 1)[1]  # no env_name: from the file's name
    assert test.test_id == f"bench.time_plain [{env}]"
    assert tuple(test.measurement("time").values) == (1.5e-6,)


def test_samples_that_do_not_fit_the_values_are_dropped_and_named(results: Path) -> None:
    _edit(_results_file(results), lambda data: _column(data, SUM, "samples").pop())
    dataset = _read(results)
    (problem,) = dataset.problems
    assert "samples that do not match the values, read without samples: " + SUM in problem.message
    data = json.loads(_results_file(results).read_text())
    first = _column(data, SUM, "result")[0]
    tests = {t.test_id.rpartition(" [")[0]: t for t in dataset.builds[0].tests}
    assert tuple(tests[f"{SUM}(10, 'int')"].measurement("time").values) == (first,)


def test_a_new_results_file_changes_the_source_s_fingerprint(results: Path) -> None:
    spec = SourceSpec(paths=(str(results),), format="asv", metric="time")
    before = fingerprint(spec)
    assert fingerprint(spec) == before
    _second_file(results, lambda path: None)
    assert fingerprint(spec) != before


def test_a_file_over_max_expanded_bytes_is_named_and_not_read(results: Path) -> None:
    big = _second_file(results, lambda path: path.write_text(path.read_text() + " " * 50_000))
    limit = big.stat().st_size - 1
    spec = SourceSpec(
        paths=(str(results),),
        format="asv",
        metric="time",
        limits=ReadLimits(max_expanded_bytes=limit),
    )
    dataset = load(spec)
    (problem,) = dataset.problems
    assert problem.origin == str(big) and "over max_expanded_bytes" in problem.message
    assert len(dataset.builds) == 1
