"""``export --dimension``: the display name follows the user's rules; bad rules are usage errors."""

from __future__ import annotations

import json
from pathlib import Path

from sphinxcontrib_trending.cli import main

ROW = {
    "test": "tests.vpp.perf.ip4.2n1l-100ge2p1e810cq-avf-ethip4-ip4base-mrr."
    "64b-2t1c-avf-ethip4-ip4base-mrr",
    "build": 1,
    "time": "2026-03-01T00:00:00Z",
    "testbed": "2n-icx",
    "tags": ["MRR", "2T1C", "NIC_Intel-E810CQ"],
    "value": 1.0,
}


def _export(tmp_path: Path, capsys, *options: str) -> tuple[int, list[dict], str]:
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(ROW) + "\n")
    code = main(["export", "--quiet", "--format", "jsonl", *options, str(path)])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_the_name_carries_the_dimensions(tmp_path: Path, capsys) -> None:
    code, (record,), _ = _export(tmp_path, capsys)
    assert code == 0
    assert record["name"] == "2n-icx 100ge2p1e810cq avf 64b 2t1c ethip4-ip4base-mrr"
    assert record["hosts"] is None


def test_a_dimension_rule_changes_the_name(tmp_path: Path, capsys) -> None:
    code, (record,), _ = _export(tmp_path, capsys, "--dimension", "nic=tag:NIC_")
    assert code == 0
    assert record["name"] == "2n-icx intel-e810cq avf 64b 2t1c ethip4-ip4base-mrr"


def test_a_bad_dimension_rule_is_a_usage_error(tmp_path: Path, capsys) -> None:
    code, records, err = _export(tmp_path, capsys, "--dimension", "nic=(")
    assert (code, records) == (2, [])
    assert "--dimension: dimension 'nic'" in err
    code, _, err = _export(tmp_path, capsys, "--dimension", "nic")
    assert code == 2 and "--dimension 'nic' is not NAME=RULE" in err
