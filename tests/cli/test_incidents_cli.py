"""``sphinx-trending incidents`` end to end on JSON Lines written out by hand.

Twenty daily builds of two testbeds, each its own job: on ``2n-skx`` three
tests drop at build 15 (the DUT version ``v15``) and one rises at build 18;
on ``3n-icx`` one test drops at build 15 too, running the same version, and
one fails from build 19 on.  ``stable`` never changes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.cli.incidents import run
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.ingest import SourceSpec
from sphinxcontrib_trending.settings import Settings, Source

START = datetime(2026, 3, 1, 6, 0, tzinfo=timezone.utc)
BUILDS = 20
Level = Callable[[int], float | None]
LEVELS: dict[str, dict[str, Level]] = {
    "2n-skx": {
        "drop-a": lambda n: 10e6 if n < 15 else 9e6,
        "drop-b": lambda n: 10e6 if n < 15 else 8e6,
        "drop-c": lambda n: 10e6 if n < 15 else 7e6,
        "rise": lambda n: 5e6 if n < 18 else 6e6,
        "stable": lambda n: 3e6,
    },
    "3n-icx": {
        "drop-d": lambda n: 4e6 if n < 15 else 3e6,
        "broken": lambda n: 2e6 if n < 19 else None,
    },
}


def _rows(levels_by_testbed: dict[str, dict[str, Level]]) -> list[dict]:
    rows = []
    for testbed, levels in levels_by_testbed.items():
        for build in range(1, BUILDS + 1):
            for test, level in levels.items():
                value = level(build)
                rows.append(
                    {
                        "job": f"perf-{testbed}",
                        "build": str(build),
                        "time": (START + timedelta(days=build - 1, hours=len(testbed))).isoformat(),
                        "test": f"tests.perf.{test}",
                        "name": test,
                        "tags": ["MRR", "2T1C"],
                        "status": "FAIL" if value is None else "PASS",
                        "message": "" if value is not None else "no traffic",
                        "metric": "mrr",
                        "unit": "pps",
                        "values": []
                        if value is None
                        else [value + (-50e3, 50e3)[k % 2] for k in range(10)],
                        "version": f"v{build}",
                        "testbed": testbed,
                    }
                )
    return rows


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write(tmp_path_factory.mktemp("incidents") / "results.jsonl", LEVELS)


def _write(path: Path, levels: dict[str, dict[str, Level]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in _rows(levels)), encoding="utf-8")
    return path


def _settings(data: Path) -> Settings:
    return Settings(
        sources={"perf": Source("perf", SourceSpec(paths=(str(data),), format="jsonl"))}
    )


def test_json_lists_one_incident_per_version_newest_first(data: Path, tmp_path: Path) -> None:
    target = tmp_path / "incidents.json"
    assert main(["incidents", str(data), "--format", "jsonl", "--json", str(target)]) == 0
    report = json.loads(target.read_text())
    assert report["schema"] == "sphinx-trending-incidents/1" and report["days"] == 30
    summary = [
        (item["kind"], item["first_bad"]["version"], [test["name"] for test in item["tests"]])
        for item in report["incidents"]
    ]
    assert summary == [
        ("failure", "v19", ["broken"]),
        ("progression", "v18", ["rise"]),
        ("regression", "v15", ["drop-c", "drop-d", "drop-b", "drop-a"]),
    ]
    drop = report["incidents"][2]
    assert drop["last_good"]["version"] == "v14"
    assert {drop["first_bad"]["job"], drop["first_bad"]["build"]} <= {
        "perf-2n-skx",
        "perf-3n-icx",
        "15",
    }
    assert drop["shared"] == {"cores": "2T1C", "test_type": "mrr"}  # two testbeds
    assert drop["changes"]["count"] == 4
    assert drop["changes"]["min"] == pytest.approx(-0.3)
    assert drop["changes"]["max"] == pytest.approx(-0.1)
    assert drop["changes"]["median"] == pytest.approx(-0.225)
    assert report["incidents"][0]["changes"] is None
    member = drop["tests"][1]
    assert member["testbed"] == "3n-icx" and member["first_bad"]["job_build"] == "perf-3n-icx/15"


def test_the_text_report_puts_each_incidents_tests_under_it(data: Path, capsys) -> None:
    assert main(["incidents", str(data), "--format", "jsonl", "--days", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "2 incidents in the last 3 days:"
    assert lines[1].startswith("* Failure: 1 test since v19 (perf-3n-icx/19), last good v18")
    assert lines[2] == "    - broken [3n-icx]"
    assert lines[3].startswith("* Progression")
    assert lines[4] == "    - rise [2n-skx]: +20.00 %"


def test_run_takes_typed_options_and_a_filter(data: Path, capsys) -> None:
    assert run(_settings(data), days=30, tag_filter="not mrr") == 2
    assert "no test matching --filter 'not mrr'" in capsys.readouterr().err
    assert run(_settings(data), days=1) == 0
    assert capsys.readouterr().out.splitlines() == ["0 incidents in the last day."]


def test_links_come_from_the_sources_templates(data: Path, tmp_path: Path, capsys) -> None:
    templated = Source(
        "perf",
        SourceSpec(paths=(str(data),), format="jsonl"),
        links=LinkTemplates(
            build="https://ci.example.org/{job}/{build}",
            version="https://git.example.org/log/{version}",
            compare="https://git.example.org/compare/{last_good}...{first_bad}",
        ),
    )
    target = tmp_path / "linked.json"
    run(Settings(sources={"perf": templated}), json_path=target, docs_base_url="https://d.org/")
    drop = json.loads(target.read_text())["incidents"][2]
    assert drop["first_bad"]["version_url"] == "https://git.example.org/log/v15"
    assert drop["last_good"]["build_url"].startswith("https://ci.example.org/perf-")
    assert drop["tests"][0]["graph"].startswith("https://d.org/graphs.html#trending-perf-")
    commits = "https://git.example.org/compare/v14...v15"
    assert drop["compare_url"] == commits
    assert {test["compare_url"] for test in drop["tests"]} == {commits}
    assert f"  commits: {commits}" in capsys.readouterr().out.splitlines()


def test_usage_errors_exit_2(tmp_path: Path, capsys) -> None:
    assert main(["incidents"]) == 2
    assert "give archive paths or --conf DIR" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["incidents", str(tmp_path), "--days", "0"])


NEWEST_DROP: dict[str, dict[str, Level]] = {
    "2n-skx": {
        "drop-a": lambda n: 10e6 if n < BUILDS else 9e6,
        "drop-b": lambda n: 10e6 if n < BUILDS else 8e6,
        "stable": lambda n: 3e6,
    },
    "3n-icx": {"drop-d": lambda n: 4e6 if n < BUILDS else 3e6},
}
"""Three tests on two testbeds drop in the newest build, which ran version v20."""


def test_check_prints_the_incident_before_the_verdicts(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path / "newest.jsonl", NEWEST_DROP)
    target = tmp_path / "check.json"
    assert main(["check", str(path), "--format", "jsonl", "--json", str(target)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Incidents (1):"
    assert lines[1].startswith("* Regression (provisional): 3 tests since v20 (perf-")
    assert lines[2:5] == [
        "    - drop-d [3n-icx]: -25.00 %",
        "    - drop-b [2n-skx]: -20.00 %",
        "    - drop-a [2n-skx]: -10.00 %",
    ]
    assert lines.index("Incidents (1):") < min(i for i, line in enumerate(lines) if "Fail" in line)
    report = json.loads(target.read_text())
    assert list(report).index("incidents") < list(report).index("verdicts")
    [incident] = report["incidents"]
    assert incident["kind"] == "regression" and incident["last_good"]["version"] == "v19"
    assert [test["name"] for test in incident["tests"]] == ["drop-d", "drop-b", "drop-a"]
    assert incident["changes"]["median"] == pytest.approx(-0.2)


def test_groupings_are_kept_in_the_cache_check_shares(data: Path, tmp_path: Path, capsys) -> None:
    cache = tmp_path / "cache"
    argv = ["incidents", str(data), "--format", "jsonl", "--cache-dir", str(cache)]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert any((cache / "classified").iterdir())
    assert main(argv) == 0
    assert capsys.readouterr().out == first


def test_control_characters_in_names_are_shown_not_sent(tmp_path: Path, capsys) -> None:
    levels: dict[str, dict[str, Level]] = {
        "2n-skx": {
            "\x1b[2Jwipe": lambda n: 10e6 if n < BUILDS else 8e6,
            "drop": lambda n: 10e6 if n < BUILDS else 9e6,
        }
    }
    path = _write(tmp_path / "hostile.jsonl", levels)
    for command in ("incidents", "check"):
        main([command, str(path), "--format", "jsonl"])
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\\x1b[2Jwipe [2n-skx]: -20.00 %" in out
