"""Every command can say where a generic Robot Framework test keeps its values.

The data is the committed plain scenario: real Robot Framework runs of an
ordinary project, whose "Checkout" test logs ``response: N ms`` three times
from its keyword "Measure Response Time" and whose "Find Product" test sets
the message ``latency: N ms``.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import lxml.html
import pytest

from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.cli.init import regex_literal
from sphinxcontrib_trending.ingest import SourceSpec, load
from tests.fixtures.generate import PLAIN, PLAIN_RUNS

RESPONSE = r"response: (?P<value>[\d.]+) ms"
KEYWORD = "Measure Response Time"
LATENCY = r"latency: (?P<value>[\d.]+) ms"
RESPONSE_OPTIONS = ["--value-pattern", RESPONSE, "--value-keyword", KEYWORD, "--metric", "response"]
CHECKOUT_TRIALS = [(run.response, run.response + 0.5, run.response - 1) for run in PLAIN_RUNS]


def _sphinx_build(site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-M", "html", str(site), str(site / "_build"), "-q"],
        capture_output=True,
        text=True,
        check=False,
    )


def _dashboard_rows(site: Path) -> dict[str, str]:
    """Test name -> its Trend cell, on the generated site's dashboard."""
    page = lxml.html.parse(str(site / "_build" / "html" / "dashboard.html")).getroot()
    rows = {}
    for row in page.xpath("//tbody/tr"):
        cells = [cell.text_content().strip() for cell in row.xpath("td")]
        rows[cells[0]] = cells[1]
    return rows


def test_init_writes_the_value_options_and_the_site_shows_the_values(tmp_path: Path) -> None:
    site = tmp_path / "site"
    argv = ["init", str(site), "--source", str(PLAIN), *RESPONSE_OPTIONS, "--direction", "lower"]
    assert main(argv) == 0
    conf_text = (site / "conf.py").read_text()
    assert f'"value_pattern": r"{RESPONSE}",' in conf_text
    namespace: dict = {}
    exec(compile(conf_text, "conf.py", "exec"), namespace)  # noqa: S102 - our own template
    source = namespace["trending_sources"]["results"]
    assert (source["value_pattern"], source["value_keyword"], source["metric"]) == (
        RESPONSE,
        KEYWORD,
        "response",
    )
    completed = _sphinx_build(site)
    assert completed.returncode == 0, completed.stderr
    # The plain runs' twin test names are the only thing the build warns about.
    warnings = [line for line in completed.stderr.splitlines() if "WARNING" in line]
    assert all("tests of the same name" in line for line in warnings), completed.stderr
    averages = [sum(trials) / len(trials) for trials in CHECKOUT_TRIALS]
    assert _dashboard_rows(site) == {"Checkout": f"{sum(averages) / len(averages):.2f}"}


def test_init_without_the_value_options_writes_none(tmp_path: Path) -> None:
    assert main(["init", str(tmp_path / "site"), "--source", str(PLAIN)]) == 0
    assert "value_" not in (tmp_path / "site" / "conf.py").read_text().split("trending_sources")[1]


def test_init_refuses_value_options_the_format_does_not_read(tmp_path: Path, capsys) -> None:
    rows = tmp_path / "r.csv"
    rows.write_text("test,build,time,value\nt,1,2026-01-01T00:00:00Z,1\n")
    argv = ["init", str(tmp_path / "s"), "--source", str(rows), "--format", "csv"]
    assert main([*argv, "--value-pattern", LATENCY]) == 2
    assert "does not apply to format 'csv'" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    "pattern", [RESPONSE, r"a\b", "ends in \\", 'say "x"', "tab\there", r"\d+\\"]
)
def test_regex_literal_means_the_pattern(pattern: str) -> None:
    assert ast.literal_eval(regex_literal(pattern)) == pattern


def test_ingest_stores_the_values_of_a_keyword(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert main(["ingest", str(PLAIN), "--store", str(store), "--quiet", *RESPONSE_OPTIONS]) == 0
    dataset = load(SourceSpec(paths=(str(store),), format="parquet"))
    checkout = [
        test.measurement("response").values
        for build in dataset.builds
        for test in build.tests
        if test.name == "Checkout"
    ]
    assert checkout == CHECKOUT_TRIALS


def test_export_writes_the_values_of_a_test_message(capsys) -> None:
    argv = ["export", str(PLAIN), "--quiet", "--value-pattern", LATENCY, "--metric", "latency"]
    assert main(argv) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    found = [r["values"] for r in records if r["name"] == "Find Product"]
    # run 2's suite teardown fails its tests: no values then
    assert found == [[] if run.broken else [run.latency] for run in PLAIN_RUNS]
    assert {r["metric"] for r in records if r["values"]} == {"latency"}


def test_export_reads_a_keyword_s_messages_with_value_keyword(capsys) -> None:
    assert main(["export", str(PLAIN), "--quiet", *RESPONSE_OPTIONS]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    found = [tuple(r["values"]) for r in records if r["metric"] == "response"]
    assert found == CHECKOUT_TRIALS


def test_check_judges_the_values_of_a_test_message(tmp_path: Path) -> None:
    target = tmp_path / "verdicts.json"
    argv = ["check", str(PLAIN), "--value-pattern", LATENCY, "--metric", "latency"]
    assert main([*argv, "--direction", "lower", "--json", str(target)]) == 0
    verdicts = {item["name"]: item for item in json.loads(target.read_text())["verdicts"]}
    latencies = [run.latency for run in PLAIN_RUNS if not run.broken]
    assert verdicts["Find Product"]["trend"] == pytest.approx(sum(latencies) / len(latencies))


def test_check_with_conf_refuses_value_options(tmp_path: Path, capsys) -> None:
    sources = {"a": {"paths": [str(PLAIN)]}}
    (tmp_path / "conf.py").write_text(f"trending_sources = {sources!r}\n")
    assert main(["check", "--conf", str(tmp_path), "--value-keyword", KEYWORD]) == 2
    assert "--value-keyword applies to archive paths only" in capsys.readouterr().err
