"""Robot Framework's own rules, checked against real runs and RF's result model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from robot.api import ExecutionResult

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.ingest import Dataset, SourceSpec, SpecError, load
from tests.fixtures.generate import PLAIN, PLAIN_RUNS
from tests.fixtures.generate_legacy import LEGACY

RUN_FILES = [PLAIN / run.folder / "output.xml" for run in PLAIN_RUNS]
BROKEN = next(index for index, run in enumerate(PLAIN_RUNS) if run.broken)
LATENCY = r"latency: (?P<value>[\d.]+) ms"


def _plain(**options: object) -> Dataset:
    return load(SourceSpec(paths=(str(PLAIN),), **options))  # type: ignore[arg-type]


def _robot_verdicts(path: Path) -> list[tuple[str, str]]:
    """Status and message of every test as Robot Framework itself reports them."""
    result = ExecutionResult(str(path))
    return [(test.status, test.message) for test in result.suite.all_tests]


@pytest.mark.parametrize("index", range(len(PLAIN_RUNS)))
def test_statuses_and_messages_are_robot_framework_s(index: int) -> None:
    build = _plain().builds[index]
    assert [(t.status, t.message) for t in build.tests] == _robot_verdicts(RUN_FILES[index])


def test_a_failed_suite_teardown_fails_its_tests_and_keeps_their_values_out() -> None:
    builds = _plain(value_pattern=LATENCY, metric="latency").builds
    find, warm_up = (t for t in builds[BROKEN].tests if t.suite == "Tests.Search")
    assert find.status == warm_up.status == "FAIL"
    assert find.message == (
        f"latency: {PLAIN_RUNS[BROKEN].latency} ms"
        "\n\nAlso parent suite teardown failed:\nindex cleanup broke"
    )
    assert warm_up.message == "Parent suite teardown failed:\nindex cleanup broke"
    assert find.measurements == ()
    # The other suite of the same run and the same test in other runs are untouched.
    assert all(t.passed for t in builds[BROKEN].tests if t.suite == "Tests.Cart")
    others = [b for i, b in enumerate(builds) if i != BROKEN]
    finds = [next(t for t in b.tests if t.name == "Find Product") for b in others]
    assert [t.measurement("latency").values for t in finds] == [
        (run.latency,) for i, run in enumerate(PLAIN_RUNS) if i != BROKEN
    ]


def test_tests_of_the_same_name_get_distinct_stable_ids_and_one_warning_per_suite() -> None:
    dataset = _plain(value_pattern=LATENCY, metric="latency")
    for build, run in zip(dataset.builds, PLAIN_RUNS, strict=True):
        twins = [t for t in build.tests if t.name.startswith("Add Item")]
        assert [(t.test_id, t.name) for t in twins] == [
            ("tests.cart.add item#t1", "Add Item #t1"),
            ("tests.cart.add item#t2", "Add Item #t2"),
        ]
        assert [t.measurement("latency").values for t in twins] == [
            (run.latency,),
            (run.latency + 1.5,),
        ]
    assert len({t.test_id for t in dataset.builds[0].tests}) == len(dataset.builds[0].tests)
    assert [str(p) for p in dataset.problems] == [
        f"{path}: suite Tests.Cart has tests of the same name: 'Add Item' (t1, t2); "
        "each is trended apart under its Robot Framework test id"
        for path in RUN_FILES
    ]


def test_plain_runs_are_builds_ordered_by_time_to_the_microsecond() -> None:
    builds = _plain().builds
    assert [(b.job, b.build, b.time) for b in builds] == [
        ("Tests", run.end.strftime("%Y%m%dT%H%M%S.%fZ"), run.end) for run in PLAIN_RUNS
    ]
    # The first two runs end within the same second and are both kept.
    assert builds[0].time.replace(microsecond=0) == builds[1].time.replace(microsecond=0)
    assert {p.subtype for p in _plain().problems} == {"data"}  # only the twin-name notes


def test_values_from_a_keyword_s_messages_are_trials() -> None:
    builds = _plain(
        value_pattern=r"response: (?P<value>[\d.]+) ms",
        value_keyword="measure_response time",
        metric="response",
        unit="ms",
    ).builds
    for build, run in zip(builds, PLAIN_RUNS, strict=True):
        checkout = next(t for t in build.tests if t.name == "Checkout")
        measurement = checkout.measurement("response")
        assert measurement.unit == "ms"
        assert measurement.values == (run.response, run.response + 0.5, run.response - 1)
        # A pattern aimed at a keyword does not read test messages.
        assert all(t.measurements == () for t in build.tests if t.name != "Checkout")


def test_named_groups_are_metrics() -> None:
    pattern = r"latency: (?P<latency>[\d.]+) ms|response: (?P<response>[\d.]+)"
    (build, *_) = _plain(value_pattern=pattern).builds
    find = next(t for t in build.tests if t.name == "Find Product")
    assert [(m.metric, m.values) for m in find.measurements] == [
        ("latency", (PLAIN_RUNS[0].latency,))
    ]


def test_elapsed_time_is_a_built_in_metric() -> None:
    dataset = _plain(metric="elapsed")
    for build, path in zip(dataset.builds, RUN_FILES, strict=True):
        robot_tests = list(ExecutionResult(str(path)).suite.all_tests)
        for test, truth in zip(build.tests, robot_tests, strict=True):
            if truth.passed:
                (measurement,) = test.measurements
                assert measurement.metric == "elapsed" and measurement.unit == "s"
                assert measurement.values == pytest.approx((truth.elapsed_time.total_seconds(),))
            else:
                assert test.measurements == ()


@pytest.mark.parametrize(
    ("options", "complaint"),
    [
        ({"value_pattern": r"latency: [\d.]+"}, "has no named group"),
        ({"value_pattern": r"(?P<value>[\d.]+"}, "not a valid regular expression"),
        ({"value_keyword": "Measure"}, "value_keyword needs a value_pattern"),
        ({"format": "csv", "value_pattern": LATENCY}, "does not apply to format 'csv'"),
    ],
)
def test_unusable_value_options_are_spec_errors(options: dict[str, str], complaint: str) -> None:
    with pytest.raises(SpecError, match=complaint):
        _plain(**options)


def test_a_value_that_is_not_a_number_is_a_data_problem() -> None:
    dataset = load(SourceSpec(paths=(str(RUN_FILES[0]),), value_pattern=r"(?P<value>latency: \S+)"))
    find = next(t for t in dataset.builds[0].tests if t.name == "Find Product")
    assert find.passed and find.measurements == ()
    assert (
        f"{RUN_FILES[0]}: test Tests.Search.Find Product: value pattern group 'value' "
        f"matched 'latency: {PLAIN_RUNS[0].latency}', not a number"
    ) in [str(p) for p in dataset.problems]


@pytest.mark.parametrize("version", ["rf3", "rf6", "rf7"])
def test_nested_suite_teardowns_of_every_schema_give_robot_framework_s_verdicts(
    version: str,
) -> None:
    """Real output of RF 3.2, 6.1 and 7, with the verdicts each version's own
    result model gave (tests/fixtures/generate_legacy.py)."""
    folder = LEGACY / f"{version}-teardown"
    dataset = load(SourceSpec(paths=(str(folder / "output.xml"),), value_pattern=LATENCY))
    (build,) = dataset.builds
    truth = json.loads((folder / "expected.json").read_text())
    assert [[t.status, t.message] for t in build.tests] == truth
    assert all(t.measurements == () for t in build.tests)
    assert [t.test_id for t in build.tests] == [
        "tests.broken.inner.measured",
        "tests.broken.inner.quiet",
        "tests.broken.twins.twin#t1",
        "tests.broken.twins.twin#t2",
        "tests.skipped.page.page",
        "tests.timed.timed",
    ]
    (problem,) = dataset.problems
    assert "suite Tests.Broken.Twins has tests of the same name: 'Twin' (t1, t2)" in str(problem)


@pytest.mark.parametrize("version", ["rf3", "rf6", "rf7"])
@pytest.mark.parametrize("keyword", ["Measure Response Time", "log", "BuiltIn.Log"])
def test_keyword_values_in_every_schema(version: str, keyword: str) -> None:
    path = LEGACY / f"{version}-teardown" / "output.xml"
    spec = SourceSpec(
        paths=(str(path),), value_pattern=r"response: (?P<value>[\d.]+) ms", value_keyword=keyword
    )
    (build,) = load(spec).builds
    timed = build.tests[-1]
    assert timed.measurement("mrr").values == (3.5, 4.5)


def test_twins_trend_as_two_histories_of_one_run_per_build() -> None:
    """Before: one merged history of 2 runs per build, alternating between the twins."""
    builds = _plain(value_pattern=LATENCY, metric="latency").builds
    twins = [h for h in histories(builds, "latency") if h.name.startswith("Add Item")]
    assert [len(h.runs) for h in twins] == [len(PLAIN_RUNS)] * 2
    assert [r.average for r in twins[1].runs] == [run.latency + 1.5 for run in PLAIN_RUNS]
