"""``check --baseline/--previous/--target``: degradation reports as a CI gate.

The committed RF7 fixture regresses tc01 ip4base 1t1c to 80 % from build 104.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from sphinxcontrib_trending.cli import main
from tests.fixtures.generate import DAILY, DAILY_JOB

REGRESSED = "64b-1t1c-ethip4-ip4base-mrr"


def _check(*extra: str) -> int:
    return main(["check", str(DAILY), *extra])


def test_target_against_a_build_before_the_regression_fails(tmp_path: Path, capsys) -> None:
    code = _check(
        "--target",
        f"{DAILY_JOB}/106",
        "--baseline",
        f"{DAILY_JOB}/103",
        "--json",
        str(tmp_path / "r.json"),
        "--junit",
        str(tmp_path / "r.xml"),
    )
    out = capsys.readouterr().out
    assert code == 1
    assert f"Target {DAILY_JOB}-106" in out
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["mode"] == "baseline" and report["fail_on"] == ["Degradation"]
    (target,) = report["targets"]
    by_name = {r["name"]: r for r in target["reports"]}
    regressed = by_name[REGRESSED]
    assert regressed["result"] == "Degradation"
    assert regressed["method"] == "welch_t_test"
    assert regressed["baseline"] == f"{DAILY_JOB}-103"
    assert regressed["relative_change"] == pytest.approx(-0.2, abs=0.03)
    assert 0.99 < regressed["confidence"] <= 1.0
    others = [r["result"] for name, r in by_name.items() if name != REGRESSED]
    assert "Degradation" not in others
    tree = etree.parse(str(tmp_path / "r.xml"))
    failures = tree.xpath("//testcase[failure]/@name")
    assert failures == [REGRESSED]


def test_previous_build_after_the_change_passes(capsys) -> None:
    code = _check("--target", f"{DAILY_JOB}/105", "--previous")
    out = capsys.readouterr().out
    assert code == 0
    assert "0 of" in out and "comparisons fail the job" in out


def test_method_and_fail_on_change(capsys) -> None:
    # A 20 % drop is far inside the average amount threshold's 2x ratio.
    code = _check(
        "--target", f"{DAILY_JOB}/106", "--baseline", f"{DAILY_JOB}/103", "--method", "aat"
    )
    assert code == 0
    code = _check(
        "--target",
        f"{DAILY_JOB}/106",
        "--baseline",
        f"{DAILY_JOB}/103",
        "--fail-on-change",
        "Degradation,Unknown",
    )
    assert code == 1


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--previous", "--fail-on-change", "Worse"], "is not one of"),
        (["--baseline", "nope/1"], "no build 'nope/1'"),
        (["--previous", "--method", "guess"], "unknown degradation method"),
        (["--previous", "--all"], "use --target with a baseline option"),
        (["--previous", "--email", "x.eml"], "alert e-mails report trend verdicts"),
    ],
)
def test_usage_errors_exit_2(extra: list[str], message: str, capsys) -> None:
    assert _check(*extra) == 2
    assert message in capsys.readouterr().err
