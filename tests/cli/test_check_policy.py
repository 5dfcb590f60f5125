"""The gate honours known changes and the anomaly policy.

The archive regresses ip4base 1t1c to 75 % in its newest build (12).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main
from tests.cli.test_check import IP4_1C, IP4_1C_CASE, NEWEST
from tests.cli.test_check import archive as archive


def _verdict(report_path: Path) -> dict:
    report = json.loads(report_path.read_text())
    return next(v for v in report["verdicts"] if v["name"] == IP4_1C)


def test_an_acknowledged_regression_does_not_fail_the_job(archive: Path, tmp_path: Path) -> None:
    known = tmp_path / "known.toml"
    known.write_text(
        f'[[change]]\ntest = "*{IP4_1C_CASE}"\nbuild = "{NEWEST.rsplit("/", 1)[1]}"\n'
        'reason = "new NIC firmware"\n'
    )
    base = ["check", str(archive), "--fail-on", "Regression", "--json", str(tmp_path / "r.json")]
    assert main(base) == 1
    assert main([*base, "--known-changes", str(known)]) == 0
    verdict = _verdict(tmp_path / "r.json")
    assert verdict["reason"] == "Regression"
    assert verdict["acknowledged"] == "new NIC firmware"
    assert 0.99 < verdict["confidence"] <= 1.0
    assert (
        ", confidence 0.99" in verdict["description"]
        or ", confidence 1.000" in verdict["description"]
    )
    assert verdict["result"] == "Pass"
    assert "acknowledged: new NIC firmware" in verdict["description"]


def test_a_bad_known_changes_file_is_a_usage_error(archive: Path, tmp_path: Path, capsys) -> None:
    broken = tmp_path / "known.toml"
    broken.write_text("[[change]]\nreason = 3\n")
    assert main(["check", str(archive), "--known-changes", str(broken)]) == 2
    assert "--known-changes" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("min_change", "reason", "code"), [(0.1, "Regression", 1), (0.5, "Maybe Regression", 0)]
)
def test_policy_from_conf_grades_the_change(
    archive: Path, tmp_path: Path, min_change: float, reason: str, code: int
) -> None:
    (tmp_path / "conf.py").write_text(
        f"trending_sources = {{'mrr': {{'paths': [{str(archive / '*.xml.gz')!r}]}}}}\n"
        f"trending_anomaly_policy = {{'min_change': {min_change}}}\n"
    )
    argv = [
        "check",
        "--conf",
        str(tmp_path),
        "--fail-on",
        "Regression",
        "--json",
        str(tmp_path / "r.json"),
    ]
    assert main(argv) == code
    assert _verdict(tmp_path / "r.json")["reason"] == reason


def test_every_verdict_states_its_false_alarm_rate(archive: Path, tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    main(["check", str(archive), "--json", str(report)])
    verdicts = json.loads(report.read_text())["verdicts"]
    rates = [verdict["false_alarms_per_100_runs"] for verdict in verdicts]
    assert rates and all(isinstance(rate, float) and rate >= 0.0 for rate in rates)


def test_a_false_alarm_target_keeps_a_clear_regression(archive: Path, tmp_path: Path) -> None:
    """A target raises thresholds only as far as the test's own noise needs: a 25 % drop stays."""
    report = tmp_path / "r.json"
    argv = ["check", str(archive), "--fail-on", "Regression", "--json", str(report)]
    assert main([*argv, "--false-alarm-target", "0.1"]) == 1
    assert _verdict(report)["reason"] == "Regression"


@pytest.mark.parametrize("bad", ["0", "-1", "many", "inf"])
def test_a_false_alarm_target_must_be_a_positive_rate(bad: str, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["check", "p", "--false-alarm-target", bad])
    assert exited.value.code == 2
    assert f"expected a positive number, got {bad!r}" in capsys.readouterr().err
