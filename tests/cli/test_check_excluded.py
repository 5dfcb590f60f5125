"""``sphinx-trending check --excluded-runs``: curated runs are no evidence of a change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main
from tests.archives import ArchiveCache
from tools.make_robot_archive import DEFAULT_JOB, Change

CASE = "64b-1t1c-ethip4-ip4base-mrr"


@pytest.fixture(scope="module")
def archive(robot_archive: ArchiveCache) -> Path:
    """Twelve builds; build 11 of one test at 60 %, back in build 12."""
    return robot_archive(
        builds=12,
        changes=[Change(f"tc01-{CASE}", 10, 0.6), Change(f"tc01-{CASE}", 11, 1 / 0.6)],
        seed=11,
    )


def _reasons(path: Path) -> set[tuple[str, str]]:
    """(build, reason) of the test's verdict in every build of a ``--all`` report."""
    return {
        (entry["build"], item["reason"])
        for entry in json.loads(path.read_text())["history"]
        for item in entry["verdicts"]
        if item["test_id"].endswith(CASE)
    }


def test_an_excluded_run_opens_no_change_and_a_bad_entry_only_warns(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    excluded = tmp_path / "excluded.toml"
    excluded.write_text(
        f'[[run]]\ntest = "*{CASE}"\nbuild = "{DEFAULT_JOB}/11"\nreason = "bad NIC firmware"\n\n'
        '[[run]]\ntest = "*"\nreason = "no build"\n'
    )
    every = tmp_path / "all.json"
    argv = ["check", str(archive), "--all", "--json", str(every)]
    assert main(argv) == 0
    assert ("11", "Regression") in _reasons(every)
    capsys.readouterr()
    assert main([*argv, "--excluded-runs", str(excluded)]) == 0
    err = capsys.readouterr().err
    assert f"{excluded}:6: excluded run 2 ignored" in err
    reasons = _reasons(every)
    history = json.loads(every.read_text())["history"]
    assert ("11", "Missing") in reasons and ("12", "Normal") in reasons
    assert not {reason for _, reason in reasons} & {"Regression", "Outlier", "Progression"}
    (skipped,) = [
        item
        for entry in history
        if entry["build"] == "11"
        for item in entry["verdicts"]
        if item["test_id"].endswith(CASE)
    ]
    assert skipped["message"] == f"excluded from grouping ({excluded}:1): bad NIC firmware"


def test_an_unreadable_file_is_a_usage_error(archive: Path, tmp_path: Path) -> None:
    assert main(["check", str(archive), "--excluded-runs", str(tmp_path / "absent.toml")]) == 2


def test_the_conf_files_exclusions_and_warnings_reach_the_gate(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "conf.py").write_text(
        f'trending_sources = {{"perf": {{"paths": [{str(archive)!r}]}}}}\n'
        'trending_excluded_runs = "excluded.toml"\n'
    )
    (tmp_path / "excluded.toml").write_text(
        f'[[run]]\ntest = "*{CASE}"\nbuild = "11"\nreason = "bad NIC firmware"\n'
        '[[run]]\nsource = "perf"\nreason = "no build"\n'
    )
    every = tmp_path / "all.json"
    assert main(["check", "--conf", str(tmp_path), "--all", "--json", str(every)]) == 0
    assert "excluded.toml:5: excluded run 2 ignored" in capsys.readouterr().err
    reasons = _reasons(every)
    assert ("11", "Missing") in reasons and ("11", "Regression") not in reasons
