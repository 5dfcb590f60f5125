"""Verdicts on real Robot Framework archives with known injected changes.

The archives are made by tools/make_robot_archive.py (real ``robot`` runs):
20 daily builds of one job, 2 % noise, and at known builds a regression, a
progression, failures and a test left out.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from benchmarks.reference_verdicts import reference_reasons
from sphinxcontrib_trending.analysis import history as history_model
from sphinxcontrib_trending.analysis.build_selection import UnknownBuild, find_build
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TrendOptions
from sphinxcontrib_trending.analysis.verdicts import (
    DEFAULT_FAIL_ON,
    Reason,
    Verdict,
    judge_build,
    judge_every_build,
    judge_latest,
    newest_verdicts,
    parse_reasons,
)
from sphinxcontrib_trending.ingest import SourceSpec, load, model
from sphinxcontrib_trending.ingest.model import Build, Measurement
from tests.archives import ArchiveCache
from tools.make_robot_archive import (
    DEFAULT_JOB,
    DEFAULT_START,
    DEFAULT_TESTS,
    Change,
    generate_build,
    plan_outcomes,
)

IP4_1C = "64b-1t1c-ethip4-ip4base-mrr"
IP4_2C = "64b-2t1c-ethip4-ip4base-mrr"
L2_1C = "64b-1t1c-eth-l2bdbasemaclrn-mrr"
L2_2C = "64b-2t1c-eth-l2bdbasemaclrn-mrr"
BUILDS = 20


def _by_name(histories_: list[history_model.TestHistory]) -> dict[str, history_model.TestHistory]:
    return {history.name: history for history in histories_}


@pytest.fixture(scope="module")
def archive(robot_archive: ArchiveCache) -> Path:
    """Builds 1..20: IP4_1C -20 % from build 13, IP4_2C +25 % from build 9,
    L2_2C -30 % at build 20, L2_1C fails in builds 6 and 20."""
    return robot_archive(
        builds=BUILDS,
        changes=[
            Change(f"tc01-{IP4_1C}", 12, 0.8),
            Change(f"tc02-{IP4_2C}", 8, 1.25),
            Change(f"tc02-{L2_2C}", 19, 0.7),
        ],
        failures=[(f"tc01-{L2_1C}", 5), (f"tc01-{L2_1C}", 19)],
        seed=7,
    )


@pytest.fixture(scope="module")
def data(archive: Path) -> tuple[list[Build], list[history_model.TestHistory]]:
    dataset = load(SourceSpec(paths=(str(archive),)))
    assert dataset.problems == []
    return dataset.builds, histories(dataset.builds, "mrr")


def _build(builds: list[model.Build], number: int) -> model.Build:
    return find_build(builds, _job_build(number))


def _job_build(number: int) -> str:
    return f"{DEFAULT_JOB}/{number}"


def test_latest_verdicts_match_the_injected_changes(data) -> None:
    builds, selected = data
    verdicts = {v.history.name: v for v in judge_latest("mrr", selected, builds, TrendOptions())}
    assert sorted(verdicts) == sorted([IP4_1C, IP4_2C, L2_1C, L2_2C])
    assert {name: v.reason for name, v in verdicts.items()} == {
        IP4_1C: Reason.NORMAL,
        IP4_2C: Reason.NORMAL,
        L2_1C: Reason.FAILED,
        L2_2C: Reason.REGRESSION,
    }
    assert {v.job_build for v in verdicts.values()} == {_job_build(BUILDS)}
    regression = verdicts[L2_2C]
    assert regression.previous_trend == pytest.approx(18.9e6, rel=0.02)
    assert regression.trend == pytest.approx(0.7 * 18.9e6, rel=0.05)
    assert regression.change == pytest.approx(-0.3, abs=0.05)
    assert regression.since is None
    assert regression.fails(DEFAULT_FAIL_ON) and regression.result() == "Fail"
    assert "link down" in verdicts[L2_1C].message
    assert verdicts[IP4_1C].trend == pytest.approx(0.8 * 12.5e6, rel=0.02)
    assert verdicts[IP4_2C].result() == "Pass"


def test_a_chosen_build_is_judged_on_the_history_up_to_it(data) -> None:
    builds, selected = data
    verdicts = {
        v.history.name: v for v in judge_build("mrr", selected, _build(builds, 13), TrendOptions())
    }
    assert verdicts[IP4_1C].reason is Reason.REGRESSION
    assert verdicts[IP4_1C].previous_trend == pytest.approx(12.5e6, rel=0.02)
    # The later builds are not known yet: L2_2C is still normal in build 13.
    assert verdicts[L2_2C].reason is Reason.NORMAL
    progression = judge_build("mrr", selected, _build(builds, 9), TrendOptions())
    assert {v.history.name: v.reason for v in progression}[IP4_2C] is Reason.PROGRESSION


def test_unknown_build_names_the_newest_ones(data) -> None:
    builds, _ = data
    with pytest.raises(UnknownBuild, match=rf"no build 'nope/1'.*{DEFAULT_JOB}/{BUILDS}"):
        find_build(builds, "nope/1")


def _changes(history) -> dict[str, list[tuple[str, str]]]:
    """Test name -> [(build, reason)] of every verdict that is not Normal, oldest first."""
    found: dict[str, list[tuple[str, str]]] = {}
    for entry in reversed(history):
        for verdict in entry.verdicts:
            if verdict.reason is not Reason.NORMAL:
                found.setdefault(verdict.history.name, []).append(
                    (verdict.build, verdict.reason.value)
                )
    return found


def test_every_build_is_judged_newest_first_showing_when_changes_arrived(data) -> None:
    builds, selected = data
    history = judge_every_build("mrr", selected, builds, TrendOptions(search="jumpavg"))
    assert [entry.build for entry in history] == [str(n) for n in range(BUILDS, 0, -1)]
    assert all(len(entry.verdicts) == 4 for entry in history)
    assert _changes(history) == {
        IP4_1C: [("13", "Regression")],
        IP4_2C: [("9", "Progression")],
        L2_1C: [("6", "Failed"), ("20", "Failed")],
        L2_2C: [("20", "Regression")],
    }
    first = {entry.build: entry for entry in history}["1"]
    assert {v.reason for v in first.verdicts} == {Reason.NORMAL}


def test_a_verdict_keeps_no_instance_dictionary(data) -> None:
    """``check --all`` keeps one per test and build: a dictionary each was 86 MB at 2,000 x 200."""
    builds, selected = data
    (newest, *_) = judge_every_build("mrr", selected, builds, TrendOptions())
    assert not any(hasattr(verdict, "__dict__") for verdict in newest.verdicts)


def test_exact_search_gives_the_same_history_on_clear_changes(data) -> None:
    builds, selected = data
    exact = judge_every_build("mrr", selected, builds, TrendOptions(search="exact"))
    greedy = judge_every_build("mrr", selected, builds, TrendOptions(search="jumpavg"))
    assert _changes(exact) == _changes(greedy)


def test_lower_is_better_swaps_regressions_and_progressions(data) -> None:
    builds, selected = data
    history = judge_every_build(
        "lat", selected, builds, TrendOptions(search="jumpavg", direction="lower")
    )
    changes = _changes(history)
    assert changes[IP4_1C] == [("13", "Progression")]
    assert changes[IP4_2C] == [("9", "Regression")]
    assert changes[L2_2C] == [("20", "Progression")]


def test_trials_as_samples_find_the_same_changes(data) -> None:
    builds, selected = data
    history = judge_every_build(
        "mrr", selected, builds, TrendOptions(samples="trials", search="jumpavg")
    )
    changes = _changes(history)
    assert changes[IP4_1C] == [("13", "Regression")]
    assert changes[L2_2C] == [("20", "Regression")]


@pytest.fixture(scope="module")
def two_jobs(
    tmp_path_factory: pytest.TempPathFactory, robot_archive: ArchiveCache
) -> tuple[list[Build], list[history_model.TestHistory]]:
    """Job A (2n-skx): 5 builds, then build 6 without IP4_2C; job B (3n-icx): 3 builds."""
    folder = robot_archive.copy(tmp_path_factory.mktemp("two-jobs"), builds=5, seed=3)
    dropped = [plan for plan in DEFAULT_TESTS if plan.name != f"tc02-{IP4_2C}"]
    generate_build(
        folder,
        job=DEFAULT_JOB,
        build="6",
        time=DEFAULT_START + timedelta(days=5),
        tests=dropped,
        outcomes=plan_outcomes(dropped, 5, random.Random(5)),
        version="24.06-rc0~105",
    )
    robot_archive.copy(
        folder,
        job="csit-vpp-perf-mrr-daily-master-3n-icx",
        builds=3,
        tests=DEFAULT_TESTS[:2],
        testbed="3n-icx",
        start=DEFAULT_START + timedelta(hours=6),
        seed=4,
    )
    dataset = load(SourceSpec(paths=(str(folder),)))
    return dataset.builds, histories(dataset.builds, "mrr")


def test_missing_only_where_the_test_was_expected(two_jobs) -> None:
    builds, selected = two_jobs
    verdicts = judge_latest("mrr", selected, builds, TrendOptions())
    summary = sorted((v.history.testbed, v.history.name, v.job_build, v.reason) for v in verdicts)
    icx_job = "csit-vpp-perf-mrr-daily-master-3n-icx"
    assert summary == sorted(
        [
            ("2n-skx", IP4_1C, _job_build(6), Reason.NORMAL),
            ("2n-skx", IP4_2C, _job_build(6), Reason.MISSING),
            ("2n-skx", L2_1C, _job_build(6), Reason.NORMAL),
            ("2n-skx", L2_2C, _job_build(6), Reason.NORMAL),
            ("3n-icx", IP4_1C, f"{icx_job}/3", Reason.NORMAL),
            ("3n-icx", IP4_2C, f"{icx_job}/3", Reason.NORMAL),
        ]
    )
    missing = next(v for v in verdicts if v.reason is Reason.MISSING)
    assert missing.result() == "Skip"
    assert missing.result(DEFAULT_FAIL_ON | {Reason.MISSING}) == "Fail"
    # A build of job B judges only the tests job B runs.
    in_b = judge_build("mrr", selected, find_build(builds, f"{icx_job}/2"), TrendOptions())
    assert {v.history.testbed for v in in_b} == {"3n-icx"}
    every = judge_every_build("mrr", selected, builds, TrendOptions(search="jumpavg"))
    assert len(every) == 9
    assert _changes(every) == {IP4_2C: [("6", "Missing")]}


# --- the verdict rules against an independent grouping (jumpavg 0.4.2) --------------

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _synthetic(values: list[float | None]) -> tuple[list[Build], list[history_model.TestHistory]]:
    """One test, one build per value; None is a failed run."""
    builds = []
    for index, value in enumerate(values):
        measured = () if value is None else (Measurement("mrr", "pps", (value,)),)
        test = model.TestResult(
            test_id="suite.t",
            name="t",
            suite="suite",
            tags=("MRR",),
            status="FAIL" if value is None else "PASS",
            start=None,
            message="boom" if value is None else "",
            measurements=measured,
        )
        builds.append(
            Build("job", str(index + 1), T0 + timedelta(hours=index), None, None, "x", (test,))
        )
    return builds, histories(builds, "mrr")


@pytest.mark.parametrize("seed", range(6))
def test_reasons_follow_the_rules_on_jumpavg_groupings(seed: int) -> None:
    rng = random.Random(seed)
    values: list[float | None] = []
    level = 1e6
    for index in range(40):
        if index in (10, 22, 31):
            level *= rng.choice([0.9, 0.95, 1.05, 1.1])
        values.append(None if rng.random() < 0.08 else level * (1 + rng.gauss(0, 0.01)))
    values[0] = level
    builds, selected = _synthetic(values)
    (history,) = selected
    every = judge_every_build("s", [history], builds, TrendOptions(search="jumpavg"))
    reasons = [entry.verdicts[0].reason.value for entry in reversed(every)]
    assert reasons == reference_reasons(values)


def test_a_late_detection_is_a_regression_that_names_where_it_started() -> None:
    values: list[float | None] = [100.0, 101.0, 99.5, 100.5, 99.0, 100.0, 101.0, 100.0]
    values += [97.0, 97.5, 96.5, 97.0, 97.5]
    builds, selected = _synthetic(values)
    every = judge_every_build("s", selected, builds, TrendOptions(search="jumpavg"))
    late = [v for entry in every for v in entry.verdicts if v.reason is Reason.REGRESSION]
    assert len(late) == 1
    (verdict,) = late
    assert verdict.since is not None and verdict.since.build == "9"
    assert int(verdict.build) > 9
    assert verdict.previous_trend == pytest.approx(100.125)


def test_a_failed_run_neither_hides_nor_shifts_a_regression() -> None:
    values: list[float | None] = [100.0, 100.5, 99.5, 100.0, 100.2, 99.8, None, 80.0, 80.5]
    builds, selected = _synthetic(values)
    every = judge_every_build("s", selected, builds, TrendOptions(search="jumpavg"))
    reasons = {v.build: v.reason for entry in every for v in entry.verdicts}
    assert reasons["7"] is Reason.FAILED
    assert reasons["8"] is Reason.REGRESSION
    assert reasons["9"] is Reason.NORMAL
    latest = judge_latest("s", selected, builds, TrendOptions(search="jumpavg"))
    assert [v.reason for v in latest] == [Reason.NORMAL]


def test_fail_on_words_are_parsed_case_insensitively() -> None:
    assert parse_reasons("regression, FAILED") == {Reason.REGRESSION, Reason.FAILED}
    assert parse_reasons("") == frozenset()
    with pytest.raises(ValueError, match="unknown verdict 'Regresion'"):
        parse_reasons("Regresion")


def test_change_is_relative_to_the_previous_trend() -> None:
    _, (history,) = _synthetic([1.0, 2.0])
    verdict = Verdict("s", history, Reason.REGRESSION, "job", "2", T0, 8.0, 8.0, 10.0)
    assert verdict.change == pytest.approx(-0.2)
    assert Verdict("s", history, Reason.NORMAL, "job", "2", T0).change is None


def _test(test_id: str, value: float | None) -> model.TestResult:
    measured = () if value is None else (Measurement("mrr", "pps", (value,)),)
    return model.TestResult(
        test_id=test_id,
        name=test_id,
        suite="suite",
        tags=(),
        status="FAIL" if value is None else "PASS",
        start=None,
        message="boom" if value is None else "",
        measurements=measured,
    )


def test_a_test_that_never_had_a_value_is_failed_when_its_newest_run_failed() -> None:
    """Always failing, or new and failing only in the newest build: Failed, never Normal."""
    builds = [
        Build(
            "job",
            str(number),
            T0 + timedelta(hours=number),
            None,
            None,
            "x",
            (_test("good", 100.0), _test("always", None))
            + ((_test("new", None),) if number == 3 else ()),
        )
        for number in (1, 2, 3)
    ]
    assert [h.name for h in histories(builds, "mrr")] == ["good"]
    gate = histories(builds, "mrr", keep_failing=True)
    assert {h.name: h.unit for h in gate} == {"always": None, "good": "pps", "new": None}
    latest = {v.history.name: v.reason for v in judge_latest("s", gate, builds, TrendOptions())}
    assert latest == {"always": Reason.FAILED, "good": Reason.NORMAL, "new": Reason.FAILED}
    chosen = judge_build("s", gate, find_build(builds, "job/3"), TrendOptions())
    assert sorted(v.reason.value for v in chosen) == ["Failed", "Failed", "Normal"]
    every = judge_every_build("s", gate, builds, TrendOptions(search="jumpavg"))
    failed = sorted((v.build, v.history.name) for e in every for v in e.verdicts if v.fails())
    assert failed == [("1", "always"), ("2", "always"), ("3", "always"), ("3", "new")]


def test_the_run_back_after_a_spike_is_judged_outlier_and_does_not_fail() -> None:
    values: list[float | None] = [100.0, 101.0, 99.5, 100.5, 99.0, 100.0, 101.0, 100.0, 99.5]
    values += [70.0, 100.2, 99.8, 100.4]
    builds, selected = _synthetic(values)
    every = judge_every_build("s", selected, builds, TrendOptions())
    by_build = {v.build: v for entry in every for v in entry.verdicts}
    # the spike as the newest run: nobody can tell yet, it is the change it looks like
    assert by_build["10"].reason is Reason.REGRESSION
    outlier = by_build["11"]
    assert outlier.reason is Reason.OUTLIER
    assert outlier.since is not None and outlier.since.build == "10"
    assert outlier.trend == pytest.approx(100.0, abs=0.5)
    assert "job/10" in outlier.message and "outlier" in outlier.message
    assert not outlier.fails() and outlier.result() == "Pass"
    assert outlier.fails(parse_reasons("Regression,Outlier"))
    assert [by_build[str(build)].reason for build in (12, 13)] == [Reason.NORMAL] * 2
    # without outliers the run back is a progression, as in the reference
    faithful = judge_every_build("s", selected, builds, TrendOptions(outlier_runs=0))
    assert {v.build: v.reason for e in faithful for v in e.verdicts}["11"] is Reason.PROGRESSION


def test_judging_one_build_of_a_rising_series_searches_twice_not_once_per_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every run of a rising series is a new largest value, which restarts a
    run-by-run search; one build's verdict needs its prefix and the one before."""
    from sphinxcontrib_trending.analysis import exact

    started = 0
    original = exact.ExactSearch.__init__

    def counted(self: exact.ExactSearch, *args: object, **kwargs: object) -> None:
        nonlocal started
        started += 1
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(exact.ExactSearch, "__init__", counted)
    values: list[float | None] = [100.0 + index for index in range(60)]
    builds, selected = _synthetic(values)
    options = TrendOptions(search="exact")
    (latest,) = judge_latest("s", selected, builds, options)
    assert started <= 2
    started = 0
    (chosen,) = judge_build("s", selected, builds[40], options)
    assert started <= 2
    walked = judge_every_build("s", selected, builds, options)
    assert latest == walked[0].verdicts[0]
    assert chosen == walked[-41].verdicts[0]


@pytest.mark.parametrize("fixture", ["data", "two_jobs"])
@pytest.mark.parametrize("search", ["exact", "jumpavg"])
def test_the_walk_s_newest_builds_are_the_latest_verdicts(
    fixture: str, search: str, request: pytest.FixtureRequest
) -> None:
    """``check --all`` takes its gate from the walk instead of grouping every history again."""
    builds, selected = request.getfixturevalue(fixture)
    options = TrendOptions(search=search)
    every = judge_every_build("mrr", selected, builds, options)
    latest = judge_latest("mrr", selected, builds, options)
    assert newest_verdicts(every, selected, builds) == latest


def test_every_build_of_the_walk_is_judged_as_that_build_alone() -> None:
    """The walk groups most runs without the groups' confidences and asks for them where
    it grades a change: every verdict, confidence included, is the one-build check's."""
    rng = random.Random(7)
    level, values = 100.0, []
    for index in range(80):
        level *= {20: 0.8, 21: 1.25, 45: 0.85, 60: 1.3}.get(index, 1.0)
        values.append(None if index == 33 else level * (1 + rng.gauss(0, 0.01)))
    builds, selected = _synthetic(values)
    options = TrendOptions(search="exact", sbps=16)
    walked = {
        (entry.job, entry.build): entry.verdicts
        for entry in judge_every_build("s", selected, builds, options)
    }
    graded = 0
    for build in builds:
        alone = judge_build("s", selected, build, options)
        assert list(walked[build.key]) == alone
        graded += sum(verdict.confidence is not None for verdict in alone)
    assert graded >= 3
