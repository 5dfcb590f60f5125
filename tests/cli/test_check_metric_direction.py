"""``check`` takes a metric's direction from the metric table unless told otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main

STEADY = [1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01, 0.99, 1.00]


def _history(tmp_path: Path, metric: str, newest: float) -> Path:
    """Ten steady builds, then the newest at ``newest`` times as much (one test, one metric)."""
    values = [*STEADY, newest]
    rows = [
        {
            "test": "tests.vpp.perf.ip4.64b-1c-ethip4-ip4base-ndrpdr",
            "build": build,
            "time": f"2026-01-{build:02d}T00:00:00Z",
            "metric": metric,
            "unit": "us",
            "values": [value * 10 + trial / 100 for trial in (-2, -1, 0, 1, 2)],
        }
        for build, value in enumerate(values, start=1)
    ]
    data = tmp_path / "results.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return data


def _verdict(tmp_path: Path, argv: list[str]) -> tuple[int, str]:
    target = tmp_path / "verdicts.json"
    code = main(["check", *argv, "--format", "jsonl", "--json", str(target)])
    (verdict,) = json.loads(target.read_text())["verdicts"]
    return code, verdict["reason"]


@pytest.mark.parametrize(
    "metric", ["latency_pdr50_forward_avg", "latency_ndr_reverse_p99", "reconf_time_lost"]
)
def test_a_rise_of_a_lower_is_better_metric_is_a_regression(tmp_path: Path, metric: str) -> None:
    data = _history(tmp_path, metric, newest=1.5)
    code, reason = _verdict(tmp_path, [str(data), "--metric", metric])
    assert (code, reason) == (1, "Regression")


def test_a_rise_of_a_higher_is_better_metric_is_a_progression(tmp_path: Path) -> None:
    data = _history(tmp_path, "pdr", newest=1.5)
    assert _verdict(tmp_path, [str(data), "--metric", "pdr"]) == (0, "Progression")


def test_an_explicit_direction_still_wins(tmp_path: Path) -> None:
    data = _history(tmp_path, "reconf_time_lost", newest=1.5)
    argv = [str(data), "--metric", "reconf_time_lost", "--direction", "higher"]
    assert _verdict(tmp_path, argv) == (0, "Progression")


def test_a_conf_source_without_direction_follows_the_judged_metric(tmp_path: Path) -> None:
    data = _history(tmp_path, "latency_pdr90_reverse_max", newest=0.5)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(
        f"trending_sources = {{'perf': {{'paths': [{str(data)!r}], 'format': 'jsonl'}}}}\n"
    )
    target = tmp_path / "verdicts.json"
    argv = ["check", "--conf", str(docs), "--metric", "latency_pdr90_reverse_max"]
    assert main([*argv, "--json", str(target)]) == 0
    (verdict,) = json.loads(target.read_text())["verdicts"]
    assert verdict["reason"] == "Progression"
