"""``check --baseline-job``: a pull request's build judged on main's nightly history.

Main's nightly job ran 20 builds of three tests on the testbed.  Then
another pull request's job ran three builds with ``ip4`` 20 % down, and ours
two, the newest of which drops ``ip4`` by 20 % too and does not run ``l2``.
Judged on the testbed's whole history, which holds the other pull request's
runs, the drop is old news; on main's history alone it is a regression.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main

MAIN = "perf-main-2n-skx"
PR = "perf-pr-2n-skx"
OTHER_PR = "perf-pr-other-2n-skx"
START = datetime(2026, 1, 1, tzinfo=timezone.utc)
LEVELS = {"ip4": 10e6, "nat": 6e6, "l2": 8e6}


def _run(job: str, build: int, day: float, name: str, level: float, rng: random.Random) -> dict:
    return {
        "job": job,
        "build": str(build),
        "time": (START + timedelta(days=day)).isoformat(),
        "test": f"tests.perf.{name}",
        "name": name,
        "tags": ["MRR"],
        "status": "PASS",
        "message": "",
        "metric": "mrr",
        "unit": "pps",
        "values": [level * rng.uniform(0.995, 1.005) for _ in range(5)],
        "testbed": "2n-skx",
    }


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = random.Random(7)
    runs = [
        _run(MAIN, build, build, name, level, rng)
        for build in range(1, 21)
        for name, level in LEVELS.items()
    ]
    runs += [
        _run(OTHER_PR, build, 20 + build / 10, name, level * (0.8 if name == "ip4" else 1), rng)
        for build in (1, 2, 3)
        for name, level in LEVELS.items()
    ]
    runs += [_run(PR, 1, 20.35, name, LEVELS[name], rng) for name in ("ip4", "nat")]
    runs += [_run(PR, 2, 20.5, "ip4", LEVELS["ip4"] * 0.8, rng)]
    runs += [_run(PR, 2, 20.5, "nat", LEVELS["nat"], rng)]
    folder = tmp_path_factory.mktemp("branch")
    (folder / "runs.jsonl").write_text("".join(json.dumps(run) + "\n" for run in runs))
    return folder


def _check(archive: Path, tmp_path: Path, *options: str) -> tuple[int, dict]:
    report = tmp_path / "report.json"
    arguments = ["check", str(archive), "--format", "jsonl", "--json", str(report), *options]
    return main(arguments), json.loads(report.read_text())


def _verdicts(report: dict) -> dict[str, tuple[str, str]]:
    return {item["name"]: (item["reason"], item["job_build"]) for item in report["verdicts"]}


def test_the_newest_branch_build_regresses_on_mains_history(archive: Path, tmp_path: Path) -> None:
    code, report = _check(archive, tmp_path, "--baseline-job", MAIN)
    assert code == 1
    assert report["mode"] == "baseline-job"
    assert _verdicts(report) == {
        "ip4": ("Regression", f"{PR}/2"),
        "nat": ("Normal", f"{PR}/2"),
    }  # l2 did not run in the pull request: not Missing, not judged
    regression = next(item for item in report["verdicts"] if item["name"] == "ip4")
    assert regression["previous_trend"] == pytest.approx(10e6, rel=0.01)
    assert regression["change"] == pytest.approx(-0.2, abs=0.01)


def test_on_the_testbeds_whole_history_the_drop_is_old_news(archive: Path, tmp_path: Path) -> None:
    code, report = _check(archive, tmp_path, "--build", f"{PR}/2")
    # the other pull request's runs made 80 % the level; our first build looks an outlier
    assert code == 0 and _verdicts(report)["ip4"] == ("Outlier", f"{PR}/2")


def test_a_named_branch_build_and_mains_history_up_to_its_time(
    archive: Path, tmp_path: Path
) -> None:
    code, report = _check(archive, tmp_path, "--baseline-job", MAIN, "--build", f"{PR}/1")
    assert code == 0
    assert _verdicts(report) == {"ip4": ("Normal", f"{PR}/1"), "nat": ("Normal", f"{PR}/1")}


def test_degradation_methods_take_baselines_from_the_baseline_job(
    archive: Path, tmp_path: Path
) -> None:
    code, report = _check(archive, tmp_path, "--baseline-job", MAIN, "--previous")
    assert code == 1
    (target,) = report["targets"]
    assert (target["job"], target["build"]) == (PR, "2")
    by_name = {item["name"]: item for item in target["reports"]}
    assert by_name["ip4"]["result"] == "Degradation"
    assert by_name["ip4"]["baseline"] == f"{MAIN}/20"
    assert by_name["nat"]["result"] == "No Change"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--baseline-job", "nightly"], "no build of the baseline job 'nightly'; jobs: "),
        (["--baseline-job", MAIN, "--build", f"{MAIN}/3"], "of the baseline job"),
        (["--baseline-job", MAIN, "--all"], "--baseline-job judges one branch build"),
        (["--baseline-job", MAIN, "--previous", "--target", f"{MAIN}/3"], "of the baseline job"),
    ],
)
def test_usage_errors(archive: Path, options: list[str], message: str, capsys) -> None:
    assert main(["check", str(archive), "--format", "jsonl", *options]) == 2
    assert message in capsys.readouterr().err
