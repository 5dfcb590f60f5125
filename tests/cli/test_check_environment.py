"""``sphinx-trending check``: a change that came with a host swap is an environment change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main

PATTERN = r"(?P<job>[^_/]+)__(?P<build>\d+)__(?P<dut_host>s\d+)"
LEVEL = [10.0, 10.1, 9.9, 10.05, 9.95, 10.0, 10.1, 9.9, 10.0, 10.05, 9.95, 10.0]


def _archive(folder: Path, new_host: str) -> Path:
    """Twelve builds on host s55 at 10 pps, then one at 8 pps on ``new_host``."""
    folder.mkdir()
    for build, value in enumerate([*LEVEL, 8.0], 1):
        host = "s55" if build <= len(LEVEL) else new_host
        row = {
            "test": "suite.t",
            "build": build,
            "time": f"2026-03-{build:02d}T00:00:00Z",
            "status": "PASS",
            "metric": "mrr",
            "unit": "pps",
            "values": [value],
        }
        (folder / f"daily__{build}__{host}.jsonl").write_text(json.dumps(row) + "\n")
    return folder


def _check(folder: Path, report: Path, *options: str) -> int:
    return main(
        [
            "check",
            str(folder / "*.jsonl"),
            "--format",
            "jsonl",
            "--build-pattern",
            PATTERN,
            "--json",
            str(report),
            *options,
        ]
    )


def test_a_change_with_a_host_swap_passes_unless_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, report = _archive(tmp_path / "swap", "s56"), tmp_path / "v.json"
    assert _check(folder, report) == 0
    (item,) = json.loads(report.read_text())["verdicts"]
    assert item["reason"] == "Regression" and item["result"] == "Pass"
    assert item["environment_change"] == "dut_host s55 -> s56"
    assert item["waived"] == "environment change: dut_host s55 -> s56"
    assert "environment change: dut_host s55 -> s56" in capsys.readouterr().out
    assert _check(folder, report, "--environment-changes=fail") == 1
    assert json.loads(report.read_text())["verdicts"][0]["result"] == "Fail"


def test_a_change_on_the_same_host_fails_as_ever(tmp_path: Path) -> None:
    folder, report = _archive(tmp_path / "same", "s55"), tmp_path / "v.json"
    assert _check(folder, report) == 1
    (item,) = json.loads(report.read_text())["verdicts"]
    assert item["environment_change"] is None and item["waived"] is None
