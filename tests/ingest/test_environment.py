"""A run's environment: the machine attributes and the build pattern's own fields."""

from __future__ import annotations

import json
import re
from pathlib import Path

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.ingest import SourceSpec, load
from sphinxcontrib_trending.ingest.environment import (
    environment_text,
    parse_environment,
    pattern_fields,
)


def test_the_environment_keeps_machine_attributes_and_pattern_fields_only() -> None:
    attributes = (
        ("build.host", "s56"),
        ("dut_type", "VPP"),
        ("hosts", "10.0.0.1"),
        ("test_type", "mrr"),
        ("tg_type", "TREX"),
    )
    text = environment_text(attributes)
    assert text == "build.host=s56\ndut_type=VPP\ntg_type=TREX"
    assert parse_environment(text) == {"build.host": "s56", "dut_type": "VPP", "tg_type": "TREX"}
    assert environment_text((("version", "1"),)) == ""


def test_the_build_patterns_own_groups_are_fields_of_the_first_name_it_matches() -> None:
    pattern = re.compile(r"(?P<job>[^_]+)__(?P<build>\d+)__(?P<host>s\d+)(?P<rack>-r\d+)?")
    names = ["nothing here", "daily__7__s55.jsonl"]
    assert pattern_fields(pattern, names) == (("build.host", "s55"),)
    assert pattern_fields(re.compile(r"(?P<job>\w+)__(?P<build>\d+)"), names) == ()


def test_a_runs_environment_comes_from_its_file_name(tmp_path: Path) -> None:
    for build, host in ((1, "s55"), (2, "s56")):
        row = {
            "test": "t",
            "build": build,
            "time": f"2026-03-0{build}T00:00:00Z",
            "status": "PASS",
            "metric": "mrr",
            "unit": "pps",
            "values": [1.0],
        }
        (tmp_path / f"daily__{build}__{host}.jsonl").write_text(json.dumps(row) + "\n")
    spec = SourceSpec(
        paths=(str(tmp_path / "*.jsonl"),),
        format="jsonl",
        build_pattern=r"(?P<job>[^_/]+)__(?P<build>\d+)__(?P<host>s\d+)",
    )
    dataset = load(spec)
    assert dataset.problems == []
    (history,) = histories(dataset.builds, "mrr")
    assert [run.environment for run in history.runs] == ["build.host=s55", "build.host=s56"]
