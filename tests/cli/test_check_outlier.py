"""``sphinx-trending check`` on a spike: a regression while newest, an Outlier once the runs return.

Twelve daily builds; in build 11 IP4_1C drops to 60 % for one build, and is
back at its level in the newest build (12).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from sphinxcontrib_trending.cli import main
from tests.archives import ArchiveCache
from tools.make_robot_archive import DEFAULT_JOB, Change

IP4_1C_CASE = "64b-1t1c-ethip4-ip4base-mrr"
IP4_1C = f"2n-skx 10ge2p1x710 dpdk {IP4_1C_CASE.replace('-', ' ', 2)}"
"""As every report names the test: testbed, NIC, driver, frame size, cores, the rest."""


@pytest.fixture(scope="module")
def archive(robot_archive: ArchiveCache) -> Path:
    return robot_archive(
        builds=12,
        changes=[
            Change(f"tc01-{IP4_1C_CASE}", 10, 0.6),
            Change(f"tc01-{IP4_1C_CASE}", 11, 1 / 0.6),
        ],
        seed=11,
    )


def test_the_run_back_is_an_outlier_that_passes_unless_asked(archive: Path, tmp_path) -> None:
    report_path, junit_path = tmp_path / "v.json", tmp_path / "j.xml"
    argv = ["check", str(archive), "--json", str(report_path), "--junit", str(junit_path)]
    assert main(argv) == 0
    report = json.loads(report_path.read_text())
    assert report["counts"]["Outlier"] == 1 and report["result"] == "Pass"
    (outlier,) = [item for item in report["verdicts"] if item["reason"] == "Outlier"]
    assert outlier["name"] == IP4_1C
    assert outlier["since"] == f"{DEFAULT_JOB}/11"
    assert "outlier" in outlier["message"]
    cases = {case.get("name"): case for case in etree.parse(str(junit_path)).iter("testcase")}
    assert cases[IP4_1C].find("failure") is None
    assert main([*argv, "--fail-on", "Regression,Failed,Outlier"]) == 1
    assert json.loads(report_path.read_text())["result"] == "Fail"


def test_all_shows_the_spike_as_a_regression_then_the_outlier(archive: Path, tmp_path) -> None:
    target = tmp_path / "all.json"
    # the exit code judges the newest build only, where the spike is over
    assert main(["check", str(archive), "--all", "--json", str(target)]) == 0
    arrivals = {
        (entry["build"], item["name"], item["reason"])
        for entry in json.loads(target.read_text())["history"]
        for item in entry["verdicts"]
        if item["reason"] != "Normal"
    }
    assert arrivals == {("11", IP4_1C, "Regression"), ("12", IP4_1C, "Outlier")}
    spike = next(
        item
        for entry in json.loads(target.read_text())["history"]
        for item in entry["verdicts"]
        if item["reason"] == "Regression"
    )
    assert spike["provisional"] is True
    assert spike["description"].endswith(", provisional, re-run to confirm")
    assert spike["confirmation"] == "unconfirmed"
