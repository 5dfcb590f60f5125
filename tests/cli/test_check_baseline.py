"""``check --baseline/--previous/--target``: degradation reports as a CI gate.

The committed RF7 fixture regresses tc01 ip4base 1t1c to 80 % from build 104.
Most tests call :func:`check.run` directly; the command line is tested where
the parsing itself is the point.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.cli.check import run
from sphinxcontrib_trending.cli.check_baseline import Comparison, ComparisonError, parse_rule
from sphinxcontrib_trending.cli.check_options import Outputs
from sphinxcontrib_trending.ingest import SourceSpec
from sphinxcontrib_trending.settings import Settings, Source
from tests.fixtures.generate import DAILY, DAILY_JOB

REGRESSED = "2n-skx 10ge2p1x710 dpdk 64b 1t1c ethip4-ip4base-mrr"
"""As every report names the test: testbed, NIC, driver, frame size, cores, the rest."""
SETTINGS = Settings(sources={"results": Source("results", SourceSpec(paths=(str(DAILY),)))})


def _compare(**options: object) -> tuple[int, dict]:
    """Exit status and the JSON report of one comparison."""
    outputs = options.pop("outputs", Outputs())
    every_build = bool(options.pop("every_build", False))
    code = run(SETTINGS, comparison=Comparison(**options), outputs=outputs, every_build=every_build)
    return code, json.loads(outputs.json.read_text()) if outputs.json else {}


def test_target_against_a_build_before_the_regression_fails(tmp_path: Path, capsys) -> None:
    outputs = Outputs(json=tmp_path / "r.json", junit=tmp_path / "r.xml")
    code, report = _compare(target=f"{DAILY_JOB}/106", baseline=f"{DAILY_JOB}/103", outputs=outputs)
    out = capsys.readouterr().out
    assert code == 1
    assert f"Target {DAILY_JOB}/106" in out
    assert report["mode"] == "baseline" and report["fail_on"] == ["Degradation"]
    (target,) = report["targets"]
    by_name = {r["name"]: r for r in target["reports"]}
    regressed = by_name[REGRESSED]
    assert regressed["result"] == "Degradation"
    assert regressed["method"] == "welch_t_test"
    assert regressed["baseline"] == f"{DAILY_JOB}/103"
    assert regressed["relative_change"] == pytest.approx(-0.2, abs=0.03)
    assert 0.99 < regressed["confidence"] <= 1.0
    others = [r["result"] for name, r in by_name.items() if name != REGRESSED]
    assert "Degradation" not in others
    tree = etree.parse(str(tmp_path / "r.xml"))
    failures = tree.xpath("//testcase[failure]/@name")
    assert failures == [REGRESSED]


def test_no_change_is_listed_only_when_verbose(tmp_path: Path, capsys) -> None:
    outputs = Outputs(json=tmp_path / "r.json")
    code, report = _compare(target=f"{DAILY_JOB}/105", outputs=outputs)
    quiet = capsys.readouterr().out
    assert code == 0
    results = [r["result"] for r in report["targets"][0]["reports"]]
    hidden = results.count("No Change")
    assert hidden > 0, "JSON keeps every report"
    assert "No Change" not in quiet.split("comparisons fail the job")[0]
    assert f"0 of {len(results)} comparisons fail the job" in quiet
    assert f"{hidden} No Change not listed (--verbose lists them)" in quiet
    assert main(["check", str(DAILY), "--target", f"{DAILY_JOB}/105", "--verbose"]) == 0
    verbose = capsys.readouterr().out
    assert verbose.count("No Change") == hidden


def test_method_and_fail_on_change() -> None:
    # A 20 % drop is far inside the average amount threshold's 2x ratio.
    pinned = {"target": f"{DAILY_JOB}/106", "baseline": f"{DAILY_JOB}/103"}
    assert _compare(**pinned, method="aat")[0] == 0
    assert _compare(**pinned, fail_on_change="Degradation,Unknown")[0] == 1


def test_command_line_strategies_come_before_conf_rules(tmp_path: Path) -> None:
    """--strategy rules are tried first; conf.py's rules take the tests they leave."""
    conf_rules = [{"method": "aat"}]
    (tmp_path / "conf.py").write_text(
        f"trending_sources = {{'results': {{'paths': [{str(DAILY)!r}]}}}}\n"
        f"trending_degradation_strategies = {conf_rules!r}\n"
    )
    argv = ["check", "--conf", str(tmp_path), "--target", f"{DAILY_JOB}/106"]
    argv += ["--baseline", f"{DAILY_JOB}/103", "--json", str(tmp_path / "r.json")]
    assert main(argv) == 0, "conf.py's aat alone does not see a 20 % drop"
    methods = {
        r["name"]: r["method"]
        for r in json.loads((tmp_path / "r.json").read_text())["targets"][0]["reports"]
    }
    assert set(methods.values()) == {"average_amount_threshold"}
    assert main([*argv, "--strategy", "tags=1t1c and ip4base,method=welch_t_test"]) == 1
    methods = {
        r["name"]: r["method"]
        for r in json.loads((tmp_path / "r.json").read_text())["targets"][0]["reports"]
        if r["method"]
    }
    assert methods[REGRESSED] == "welch_t_test"
    assert {m for name, m in methods.items() if name != REGRESSED} == {"average_amount_threshold"}
    # --method replaces every rule, from the command line and conf.py alike.
    assert main([*argv, "--strategy", "method=welch_t_test", "--method", "aat"]) == 0


def test_strategy_rules_are_typed_as_conf_values() -> None:
    assert parse_rule("tags=mrr and 1t1c, method=aat ,ratio=1.5,direction=lower") == {
        "tags": "mrr and 1t1c",
        "method": "aat",
        "ratio": 1.5,
        "direction": "lower",
    }
    with pytest.raises(ComparisonError, match="is not KEY=VALUE"):
        parse_rule("method")


def test_all_compares_every_build_of_the_target_job(tmp_path: Path, capsys) -> None:
    outputs = Outputs(json=tmp_path / "r.json")
    code, report = _compare(target=f"{DAILY_JOB}/106", every_build=True, outputs=outputs)
    out = capsys.readouterr().out
    assert code == 0, "the gate is the target, which is compared with 105"
    history = [(entry["job"], entry["build"]) for entry in report["history"]]
    assert history == [(DAILY_JOB, str(n)) for n in range(106, 100, -1)]
    regression = next(entry for entry in report["history"] if entry["build"] == "104")
    assert {r["name"]: r["result"] for r in regression["reports"]}[REGRESSED] == "Degradation"
    headings = [line.split()[1] for line in out.splitlines() if line.startswith("Target ")]
    assert headings == [f"{DAILY_JOB}/{n}" for n in (*range(106, 100, -1), 106)]
    assert [t["build"] for t in report["targets"]] == ["106"]
    assert "comparisons over all builds are in --fail-on-change (Degradation)" in out
    assert out.rstrip().splitlines()[-1].startswith("0 of 6 comparisons fail the job")


def test_old_build_syntax_works_with_a_deprecation_message(capsys) -> None:
    code = main(["check", str(DAILY), "--target", f"{DAILY_JOB}-106", "--baseline", "103"])
    assert code == 1
    err = capsys.readouterr().err
    assert err.count("JOB-BUILD syntax is deprecated") == 1
    assert f"write '{DAILY_JOB}/106'" in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--previous", "--fail-on-change", "Worse"], "is not one of"),
        (["--baseline", "nope/1"], "no build 'nope/1'"),
        (["--previous", "--method", "guess"], "unknown degradation method"),
        (["--previous", "--strategy", "method=aat,ratio=x"], "--strategy[0]"),
        (["--method", "aat"], "add --previous, --baseline"),
        (["--previous", "--build", "x/1"], "use --target and --all with a baseline option"),
        (["--previous", "--email", "x.eml"], "alert e-mails belong to trend verdicts"),
        (["--previous", "--markdown", "x.md"], "--markdown, --webhook and alert e-mails"),
        (["--previous", "--webhook", "http://127.0.0.1:9/x"], "--webhook and alert e-mails"),
    ],
)
def test_usage_errors_exit_2(extra: list[str], message: str, capsys) -> None:
    assert main(["check", str(DAILY), *extra]) == 2
    assert message in capsys.readouterr().err
