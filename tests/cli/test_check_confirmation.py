"""``sphinx-trending check --unconfirmed``: a regression seen in the newest run only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main
from tests.archives import ArchiveCache
from tools.make_robot_archive import DEFAULT_JOB, Change, default_version

CASE = "64b-1t1c-ethip4-ip4base-mrr"


@pytest.fixture(scope="module")
def fresh(robot_archive: ArchiveCache) -> Path:
    """Eleven builds; the newest is the first at 60 %."""
    return robot_archive(builds=11, changes=[Change(f"tc01-{CASE}", 10, 0.6)], seed=11)


def rerun_version(index: int) -> str:
    """Build 12 (index 11) re-runs build 11's DUT version."""
    return default_version(min(index, 10))


@pytest.fixture(scope="module")
def held(robot_archive: ArchiveCache) -> Path:
    """Twelve builds; 60 % from build 11, still so in the newest, a re-run of its version."""
    return robot_archive(
        builds=12, changes=[Change(f"tc01-{CASE}", 10, 0.6)], seed=11, version_fn=rerun_version
    )


def _report(path: Path) -> dict:
    return json.loads(path.read_text())


def _regression(report: dict) -> dict:
    (found,) = [item for item in report["verdicts"] if item["test_id"].endswith(CASE)]
    return found


def test_a_fresh_regression_fails_unless_unconfirmed_ones_pass(
    fresh: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "v.json"
    assert main(["check", str(fresh), "--json", str(target)]) == 1
    item = _regression(_report(target))
    assert item["reason"] == "Regression" and item["confirmation"] == "unconfirmed"
    assert item["waived"] is None and item["result"] == "Fail"
    capsys.readouterr()
    assert main(["check", str(fresh), "--json", str(target), "--unconfirmed=pass"]) == 0
    item = _regression(_report(target))
    assert item["reason"] == "Regression" and item["result"] == "Pass"
    assert item["waived"] == "re-run to confirm"
    assert "re-run to confirm" in capsys.readouterr().out


def test_a_re_run_at_the_new_level_confirms_it(held: Path, tmp_path: Path) -> None:
    target = tmp_path / "v.json"
    # failed on the first run already: the confirmation is news, the gate passes
    assert main(["check", str(held), "--json", str(target)]) == 0
    item = _regression(_report(target))
    assert item["reason"] == "Normal" and item["confirmation"] == "confirmed"
    assert item["since"] == f"{DEFAULT_JOB}/11"
    # held back on the first run: the confirmation raises the alarm
    assert main(["check", str(held), "--json", str(target), "--unconfirmed", "pass"]) == 1
    item = _regression(_report(target))
    assert item["reason"] == "Regression" and item["confirmation"] == "confirmed"
    assert item["waived"] is None and "confirmed" in item["description"]


def test_the_next_build_of_another_version_confirms_nothing(
    robot_archive: ArchiveCache, tmp_path: Path
) -> None:
    """Build 12 runs a newer DUT version: its own change could hold the level down."""
    other = robot_archive(builds=12, changes=[Change(f"tc01-{CASE}", 10, 0.6)], seed=11)
    target = tmp_path / "v.json"
    assert main(["check", str(other), "--json", str(target), "--unconfirmed", "pass"]) == 0
    item = _regression(_report(target))
    assert item["reason"] == "Normal" and item["confirmation"] is None


def test_a_re_run_back_dismisses_it(robot_archive: ArchiveCache, tmp_path: Path) -> None:
    spike = robot_archive(
        builds=12,
        changes=[Change(f"tc01-{CASE}", 10, 0.6), Change(f"tc01-{CASE}", 11, 1 / 0.6)],
        seed=11,
        version_fn=rerun_version,
    )
    target = tmp_path / "v.json"
    assert main(["check", str(spike), "--json", str(target), "--unconfirmed=pass"]) == 0
    item = _regression(_report(target))
    assert item["reason"] == "Outlier" and item["confirmation"] == "dismissed"


def test_unconfirmed_takes_fail_or_pass_only(fresh: Path) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["check", str(fresh), "--unconfirmed=maybe"])
    assert raised.value.code == 2
