"""A metric that matches nothing names the metrics the data has."""

from __future__ import annotations

import json
from pathlib import Path

from sphinxcontrib_trending.cli import main


def test_check_lists_the_metrics_when_none_matches(tmp_path: Path, capsys) -> None:
    rows = [
        {
            "test": "a.b",
            "build": build,
            "time": f"2026-01-0{build}T00:00:00Z",
            "metric": "latency",
            "unit": "s",
            "values": [1.0],
        }
        for build in range(1, 4)
    ]
    data = tmp_path / "r.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert main(["check", str(data), "--format", "jsonl", "--metric", "mrr"]) == 2
    assert "(metrics in the data: latency)" in capsys.readouterr().err
