"""``sphinx-trending check`` end to end on generated Robot Framework archives.

Twelve daily builds: IP4_2C gains 25 % from build 5; in the newest build
(12) IP4_1C drops 25 % and L2_1C fails.
"""

from __future__ import annotations

import email
import email.policy
import json
import re
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from lxml import etree

from sphinxcontrib_trending.alerts.markdown import escape
from sphinxcontrib_trending.analysis import verdicts
from sphinxcontrib_trending.cli import check, main
from sphinxcontrib_trending.cli.check import run
from sphinxcontrib_trending.cli.check_options import Outputs
from sphinxcontrib_trending.ingest import SourceSpec
from sphinxcontrib_trending.ingest.model import Build
from sphinxcontrib_trending.settings import Settings, Source
from tests.alerts.webhook_server import SECRET_PATH, Answer, webhook_server
from tests.archives import ArchiveCache
from tools.make_robot_archive import DEFAULT_JOB, Change, default_version

IP4_1C_CASE = "64b-1t1c-ethip4-ip4base-mrr"
IP4_2C_CASE = "64b-2t1c-ethip4-ip4base-mrr"
L2_1C_CASE = "64b-1t1c-eth-l2bdbasemaclrn-mrr"


def _shown(case: str) -> str:
    """How every report names a case of the archive: testbed, NIC, driver, then the case."""
    frame_size, cores, rest = case.split("-", 2)
    return f"2n-skx 10ge2p1x710 dpdk {frame_size} {cores} {rest}"


IP4_1C = _shown(IP4_1C_CASE)
IP4_2C = _shown(IP4_2C_CASE)
L2_1C = _shown(L2_1C_CASE)
L2_2C = _shown("64b-2t1c-eth-l2bdbasemaclrn-mrr")
NEWEST = f"{DEFAULT_JOB}/12"

JUNIT_XSD = b"""<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="testsuites">
    <xs:complexType>
      <xs:sequence><xs:element ref="testsuite" maxOccurs="unbounded"/></xs:sequence>
      <xs:attribute name="name" type="xs:string"/>
      <xs:attributeGroup ref="totals"/>
    </xs:complexType>
  </xs:element>
  <xs:attributeGroup name="totals">
    <xs:attribute name="tests" type="xs:nonNegativeInteger" use="required"/>
    <xs:attribute name="failures" type="xs:nonNegativeInteger" use="required"/>
    <xs:attribute name="errors" type="xs:nonNegativeInteger" use="required"/>
    <xs:attribute name="skipped" type="xs:nonNegativeInteger"/>
    <xs:attribute name="time" type="xs:decimal"/>
  </xs:attributeGroup>
  <xs:element name="testsuite">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="properties" minOccurs="0">
          <xs:complexType><xs:sequence>
            <xs:element name="property" maxOccurs="unbounded">
              <xs:complexType>
                <xs:attribute name="name" type="xs:string" use="required"/>
                <xs:attribute name="value" type="xs:string" use="required"/>
              </xs:complexType>
            </xs:element>
          </xs:sequence></xs:complexType>
        </xs:element>
        <xs:element name="testcase" minOccurs="0" maxOccurs="unbounded">
          <xs:complexType>
            <xs:sequence>
              <xs:choice minOccurs="0">
                <xs:element name="failure">
                  <xs:complexType><xs:simpleContent><xs:extension base="xs:string">
                    <xs:attribute name="type" type="xs:string" use="required"/>
                    <xs:attribute name="message" type="xs:string"/>
                  </xs:extension></xs:simpleContent></xs:complexType>
                </xs:element>
                <xs:element name="skipped">
                  <xs:complexType><xs:attribute name="message" type="xs:string"/></xs:complexType>
                </xs:element>
              </xs:choice>
              <xs:element name="system-out" type="xs:string" minOccurs="0"/>
            </xs:sequence>
            <xs:attribute name="name" type="xs:string" use="required"/>
            <xs:attribute name="classname" type="xs:string" use="required"/>
            <xs:attribute name="time" type="xs:decimal"/>
          </xs:complexType>
        </xs:element>
      </xs:sequence>
      <xs:attribute name="name" type="xs:string" use="required"/>
      <xs:attribute name="timestamp" type="xs:dateTime"/>
      <xs:attributeGroup ref="totals"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
"""


@pytest.fixture(scope="module")
def archive(robot_archive: ArchiveCache) -> Path:
    return robot_archive(
        builds=12,
        changes=[
            Change(f"tc02-{IP4_2C_CASE}", 4, 1.25),
            Change(f"tc01-{IP4_1C_CASE}", 11, 0.75),
        ],
        failures=[(f"tc01-{L2_1C_CASE}", 11)],
        seed=11,
    )


def _rows(stdout: str) -> dict[str, list[str]]:
    """Table rows split at the columns' gaps, keyed by test name (the third cell, less
    its ``[testbed]``)."""
    rows = {}
    for line in stdout.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) > 3 and cells[0] in ("Pass", "Fail", "Skip"):
            rows[re.sub(r" \[[^]]*\]$", "", cells[2])] = cells
    return rows


def test_newest_build_fails_on_regression_and_failure(archive: Path, capsys) -> None:
    assert main(["check", str(archive)]) == 1
    out = capsys.readouterr().out
    rows = _rows(out)
    assert set(rows) == {IP4_1C, L2_1C}
    assert rows[IP4_1C][:2] == ["Fail", "Regression"] and rows[IP4_1C][3] == NEWEST
    assert rows[IP4_1C][2] == f"{IP4_1C}"
    assert rows[L2_1C][:2] == ["Fail", "Failed"]
    assert "link down" in out
    assert "4 tests: 2 Normal, 1 Regression, 1 Failed -> FAIL" in out


def _settings(archive: Path) -> Settings:
    return Settings(sources={"results": Source("results", SourceSpec(paths=(str(archive),)))})


def test_fail_on_chooses_which_verdicts_fail_the_job(archive: Path, capsys) -> None:
    settings = _settings(archive)
    assert run(settings, fail_on="") == 0
    assert run(settings, fail_on="failed") == 1
    assert run(settings, build=f"{DEFAULT_JOB}/5") == 0
    assert run(settings, build=f"{DEFAULT_JOB}/5", fail_on="Progression") == 1
    rows = _rows(capsys.readouterr().out)
    assert rows[IP4_2C][:2] == ["Fail", "Progression"]


def test_the_old_build_syntax_works_and_says_it_is_deprecated(archive: Path, capsys) -> None:
    assert main(["check", str(archive), "--build", f"{DEFAULT_JOB}-5"]) == 0
    err = capsys.readouterr().err
    assert f"JOB-BUILD syntax is deprecated, write '{DEFAULT_JOB}/5'" in err


def test_filter_judges_only_tests_with_matching_tags(archive: Path, tmp_path: Path) -> None:
    target = tmp_path / "f.json"
    settings, outputs = _settings(archive), Outputs(json=target)
    assert run(settings, tag_filter="mrr and 2t1c", outputs=outputs) == 0
    names = {item["name"] for item in json.loads(target.read_text())["verdicts"]}
    assert names == {IP4_2C, L2_2C}
    assert run(settings, tag_filter="1T1C and not l2*", outputs=outputs) == 1
    assert {item["name"] for item in json.loads(target.read_text())["verdicts"]} == {IP4_1C}


def test_quiet_build_passes_and_verbose_lists_every_test(archive: Path, capsys) -> None:
    assert main(["check", str(archive), "--build", f"{DEFAULT_JOB}-3", "--verbose"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert sorted(rows) == sorted([IP4_1C, IP4_2C, L2_1C, L2_2C])
    assert {cells[1] for cells in rows.values()} == {"Normal"}


def test_json_report(archive: Path, tmp_path: Path) -> None:
    target = tmp_path / "verdicts.json"
    assert (
        main(
            ["check", str(archive), "--json", str(target), "--docs-base-url", "https://x.org/perf/"]
        )
        == 1
    )
    report = json.loads(target.read_text())
    assert report["schema"] == "sphinx-trending-check/1"
    assert report["result"] == "Fail" and report["mode"] == "latest"
    assert report["search"] == "exact"
    assert report["counts"] == {
        "Normal": 2,
        "Regression": 1,
        "Progression": 0,
        "Maybe Regression": 0,
        "Maybe Progression": 0,
        "Failed": 1,
        "Missing": 0,
        "Outlier": 0,
    }
    by_name = {item["name"]: item for item in report["verdicts"]}
    regression = by_name[IP4_1C]
    assert regression["job_build"] == NEWEST and regression["result"] == "Fail"
    assert regression["change"] == pytest.approx(-0.25, abs=0.04)
    assert regression["previous_trend"] == pytest.approx(12.5e6, rel=0.02)
    assert regression["graph"].startswith(
        "https://x.org/perf/graphs.html#trending-results-mrr-2n-skx-"
    )
    assert by_name[L2_1C]["reason"] == "Failed" and "link down" in by_name[L2_1C]["message"]
    assert by_name[IP4_2C]["trend"] == pytest.approx(1.25 * 24e6, rel=0.02)


def test_junit_report_is_valid_and_fails_regressions_and_failures(
    archive: Path, tmp_path: Path
) -> None:
    target = tmp_path / "junit.xml"
    assert main(["check", str(archive), "--junit", str(target)]) == 1
    tree = etree.parse(str(target))
    etree.XMLSchema(etree.fromstring(JUNIT_XSD)).assertValid(tree)
    root = tree.getroot()
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("4", "2", "0")
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert sorted(cases) == sorted([IP4_1C, IP4_2C, L2_1C, L2_2C])
    assert cases[IP4_1C].find("failure").get("type") == "Regression"
    assert cases[L2_1C].find("failure").get("type") == "Failed"
    assert cases[L2_1C].find("failure").text == (
        "Traffic generator reported no received packets: link down on port 0"
    )
    assert "previous trend: 12." in cases[IP4_1C].find("system-out").text
    assert cases[IP4_2C].find("failure") is None
    assert cases[IP4_1C].get("classname").startswith("results.2n-skx.")


def test_all_prints_the_history_newest_first(archive: Path, tmp_path: Path, capsys) -> None:
    target = tmp_path / "all.json"
    assert main(["check", str(archive), "--all", "--json", str(target)]) == 1
    out = capsys.readouterr().out
    headings = [line.split()[1] for line in out.splitlines() if line.startswith("== ")]
    assert headings == [f"{DEFAULT_JOB}/{n}" for n in range(12, 0, -1)]
    report = json.loads(target.read_text())
    arrivals = {
        (entry["build"], item["name"], item["reason"])
        for entry in report["history"]
        for item in entry["verdicts"]
        if item["reason"] != "Normal"
    }
    assert arrivals == {
        ("5", IP4_2C, "Progression"),
        ("12", IP4_1C, "Regression"),
        ("12", L2_1C, "Failed"),
    }
    assert report["counts"]["Regression"] == 1
    assert report["search"] == "exact" and report["mode"] == "all"


def test_all_judges_builds_without_their_test_results(
    archive: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """The histories hold every run: the builds' results beside them doubled the memory."""
    judged: list[Sequence[Build]] = []

    def judge_every_build(source: str, histories: Any, builds: Sequence[Build], *args: Any) -> Any:
        judged.append(builds)
        return verdicts.judge_every_build(source, histories, builds, *args)

    monkeypatch.setattr(check, "judge_every_build", judge_every_build)
    assert main(["check", str(archive), "--all"]) == 1
    (builds,) = judged
    assert len(builds) == 12 and all(build.tests == () for build in builds)


def test_unknown_build_is_a_usage_error(archive: Path, capsys) -> None:
    assert main(["check", str(archive), "--build", "nope-7"]) == 2
    assert "no build 'nope-7'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "give archive paths or --conf DIR"),
        (["--source", "x", "p"], "--source NAME needs --conf DIR"),
        (["p", "--fail-on", "Bad"], "unknown verdict 'Bad'"),
        (["p", "--filter", "mrr and ("], "--filter: "),
        (["p", "--send"], "--send needs --email FILE, --mail-from, --mail-to"),
        (
            [
                "p",
                "--send",
                "--email",
                "m",
                "--mail-from",
                "a@x",
                "--mail-to",
                "b@x",
                "--smtp-user",
                "u",
                "--smtp-password-env",
                "NO_SUCH_VARIABLE_SET",
            ],
            "needs the password in the environment variable NO_SUCH_VARIABLE_SET",
        ),
    ],
)
def test_usage_errors_exit_2(argv: list[str], message: str, capsys) -> None:
    assert main(["check", *argv]) == 2
    assert message in capsys.readouterr().err


def test_password_cannot_be_given_on_the_command_line(capsys) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["check", "p", "--smtp-password", "hunter2"])
    assert raised.value.code == 2
    assert "unrecognized arguments: --smtp-password" in capsys.readouterr().err


def test_empty_source_is_a_usage_error(tmp_path: Path, capsys) -> None:
    assert main(["check", str(tmp_path)]) == 2
    assert "has no usable build" in capsys.readouterr().err


def _conf(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "conf.py").write_text(body)
    return folder


def test_conf_is_read_the_way_sphinx_reads_it(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Relative paths resolve against conf.py's folder, and conf.py runs with
    # that folder as working directory and a ``tags`` object, as in Sphinx.
    docs = tmp_path / "docs"
    (tmp_path / "data").symlink_to(archive)
    _conf(
        docs,
        "import os\n"
        "assert os.path.isfile('conf.py') and not tags.has('html')\n"
        "trending_sources = {'perf': {'paths': ['../data'], 'testbed': r'\\dn-\\w+$'},\n"
        "                    'other': {'paths': ['nowhere/*.xml']}}\n"
        "trending_docs_base_url = 'https://docs.example.org/trending'\n"
        "trending_search = 'jumpavg'\n",
    )
    target = tmp_path / "out.json"
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--conf", "docs", "--source", "perf", "--json", str(target)])
    assert code == 1
    report = json.loads(target.read_text())
    assert {item["source"] for item in report["verdicts"]} == {"perf"}
    assert report["search"] == "jumpavg"
    regression = next(item for item in report["verdicts"] if item["reason"] == "Regression")
    assert regression["graph"].startswith(
        "https://docs.example.org/trending/graphs.html#trending-perf-"
    )


def test_every_conf_issue_is_fatal(tmp_path: Path, archive: Path, capsys) -> None:
    docs = _conf(
        tmp_path / "docs",
        f"trending_sources = {{'perf': {{'paths': [{str(archive)!r}], 'direction': 'up'}}}}\n"
        "trending_short_term_days = -1\n",
    )
    assert main(["check", "--conf", str(docs)]) == 2
    err = capsys.readouterr().err
    assert "error: " in err and "trending_sources['perf']['direction']" in err
    assert "error: " in err and "trending_short_term_days" in err
    assert "2 configuration error(s)" in err


@pytest.mark.parametrize(
    "setting",
    ["trending_plotlyjs = 'nope'", "trending_short_term_days = 'week'"],
)
def test_an_issue_outside_the_judged_sources_stops_the_gate_too(
    tmp_path: Path, archive: Path, capsys, setting: str
) -> None:
    docs = _conf(
        tmp_path / "docs",
        f"trending_sources = {{'perf': {{'paths': [{str(archive)!r}]}}}}\n{setting}\n",
    )
    assert main(["check", "--conf", str(docs), "--build", f"{DEFAULT_JOB}/3"]) == 2
    assert "error: " in capsys.readouterr().err


def test_a_misspelt_source_key_exits_2_naming_source_and_key(
    tmp_path: Path, archive: Path, capsys
) -> None:
    # "path" for "paths": the source has no data, which once passed the gate.
    docs = _conf(
        tmp_path / "docs",
        f"trending_sources = {{'perf': {{'path': [{str(archive)!r}]}}}}\n",
    )
    assert main(["check", "--conf", str(docs)]) == 2
    err = capsys.readouterr().err
    assert "trending_sources['perf']['path']" in err
    assert "PASS" not in err


def test_a_source_with_no_files_exits_2(tmp_path: Path, capsys) -> None:
    docs = _conf(tmp_path / "docs", "trending_sources = {'perf': {'paths': ['none/*.xml']}}\n")
    assert main(["check", "--conf", str(docs)]) == 2
    assert "source 'perf' has no usable build" in capsys.readouterr().err


def test_conf_problems_exit_2(tmp_path: Path, capsys) -> None:
    assert main(["check", "--conf", str(tmp_path)]) == 2
    assert "conf.py" in capsys.readouterr().err
    docs = _conf(tmp_path / "docs", "trending_sources = {'a': {'paths': ['x']}}\n")
    assert main(["check", "--conf", str(docs), "--source", "b"]) == 2
    assert "unknown source(s) 'b'" in capsys.readouterr().err
    assert main(["check", "--conf", str(docs), "--direction", "lower"]) == 2
    assert "--direction applies to archive paths only" in capsys.readouterr().err
    broken = _conf(tmp_path / "broken", "raise RuntimeError('oops')\n")
    assert main(["check", "--conf", str(broken)]) == 2
    assert "oops" in capsys.readouterr().err


def test_email_file_without_addresses_has_a_sender_and_no_empty_to(
    archive: Path, tmp_path: Path
) -> None:
    target = tmp_path / "alert.eml"
    assert main(["check", str(archive), "--email", str(target)]) == 1
    message = email.message_from_bytes(target.read_bytes(), policy=email.policy.default)
    assert message["From"] == "sphinx-trending@localhost"
    assert "To" not in message


def test_email_file_is_a_complete_message(archive: Path, tmp_path: Path) -> None:
    target = tmp_path / "alert.eml"
    code = main(
        [
            "check",
            str(archive),
            "--email",
            str(target),
            "--mail-from",
            "ci@example.org",
            "--mail-to",
            "a@example.org",
        ]
    )
    assert code == 1
    message = email.message_from_bytes(target.read_bytes(), policy=email.policy.default)
    assert message["Subject"] == f"[trending] FAIL: 1 regression, 1 failed in {NEWEST}"
    assert message["To"] == "a@example.org"
    text = message.get_body(("plain",)).get_content()
    assert f"{IP4_1C} in {NEWEST}: trend 12." in text


def test_every_conf_source_is_judged_by_default(tmp_path: Path, archive: Path, capsys) -> None:
    docs = _conf(
        tmp_path / "docs",
        f"trending_sources = {{'a': {{'paths': [{str(archive)!r}]}},\n"
        f"                    'b': {{'paths': [{str(archive)!r}], 'direction': 'lower'}}}}\n",
    )
    assert main(["check", "--conf", str(docs), "--build", f"{DEFAULT_JOB}-5"]) == 1
    out = capsys.readouterr().out
    # Source b treats lower as better: the +25 % step is its regression.
    assert f"Fail    Regression   b: {IP4_2C}" in out
    assert f"Pass    Progression  a: {IP4_2C}" in out
    assert "8 tests: 6 Normal, 1 Regression, 1 Progression -> FAIL" in out


def test_a_test_that_never_had_a_value_fails_the_gate(tmp_path: Path, capsys) -> None:
    rows = [
        {"test": "a.good", "build": n, "time": f"2024-05-0{n}T00:00:00Z", "values": [10, 10.1]}
        for n in (1, 2, 3)
    ]
    rows += [
        {"test": "a.always", "build": n, "time": f"2024-05-0{n}T00:00:00Z", "status": "FAIL"}
        for n in (1, 2, 3)
    ]
    rows.append({"test": "a.new", "build": 3, "time": "2024-05-03T00:00:00Z", "status": "FAIL"})
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    argv = ["check", "--format", "jsonl", "--fail-on", "Failed,Regression,Missing", str(data)]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "3 tests: 1 Normal, 2 Failed -> FAIL" in out
    # a source with no value at all is still a configuration error, not a verdict
    failing = tmp_path / "failing.jsonl"
    failing.write_text("".join(json.dumps(row) + "\n" for row in rows[3:]))
    assert main(["check", "--format", "jsonl", str(failing)]) == 2


def test_a_cache_folder_that_cannot_be_written_is_a_warning_not_a_crash(
    archive: Path, tmp_path: Path, capsys
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    cache = blocker / "cache"
    assert main(["check", str(archive), "--cache-dir", str(cache)]) == 1  # as without a cache
    err = capsys.readouterr().err
    assert f"warning: cache folder {cache} cannot be written (" in err
    assert "internal error" not in err


def test_markdown_summary_names_the_outcome_and_the_regression(
    archive: Path, tmp_path: Path
) -> None:
    target = tmp_path / "summary.md"
    base = "https://docs.example.org"
    assert main(["check", str(archive), "--markdown", str(target), "--docs-base-url", base]) == 1
    text = target.read_text(encoding="utf-8")
    assert text.startswith("### Performance check: FAIL\n")
    assert f"Judged: `{NEWEST}`" in text
    # the regressions table's row; the incidents above name the test too
    regression = next(line for line in text.splitlines() if line.startswith(f"| [{IP4_1C}"))
    assert regression.startswith(f"| [{IP4_1C}]({base}/graphs.html#trending-results-")
    assert "**Failed tests (1)**" in text and "link down" in text


def test_a_failing_verdict_is_posted_to_the_webhook_and_the_url_never_printed(
    archive: Path, capsys
) -> None:
    with webhook_server() as hook:
        assert main(["check", str(archive), "--webhook", hook.url]) == 1
    out, err = capsys.readouterr()
    assert len(hook.received) == 1 and hook.paths == [SECRET_PATH]
    assert hook.received[0]["text"].startswith("Performance check FAIL: 1 regression, 1 failed")
    assert "webhook message posted to http://127.0.0.1/…" in out
    assert "SECRET" not in out + err


def test_a_passing_run_posts_nothing(archive: Path) -> None:
    with webhook_server() as hook:
        assert main(["check", str(archive), "--webhook", hook.url, "--fail-on", ""]) == 0
    assert hook.received == []


def test_an_undelivered_webhook_message_exits_3_without_the_secret(archive: Path, capsys) -> None:
    with webhook_server(Answer(403, "invalid_token")) as hook:
        code = main(["check", str(archive), "--webhook", hook.url, "--webhook-retries", "0"])
    assert code == 3
    err = capsys.readouterr().err
    assert "webhook message not sent: http://127.0.0.1/…: HTTP 403 invalid_token" in err
    assert "SECRET" not in err


def test_the_webhook_of_conf_py_is_used(archive: Path, tmp_path: Path, capsys) -> None:
    with webhook_server() as hook:
        docs = _conf(
            tmp_path / "docs",
            f"trending_sources = {{'perf': {{'paths': [{str(archive)!r}]}}}}\n"
            f"trending_webhook = {hook.url!r}\n",
        )
        assert main(["check", "--conf", str(docs)]) == 1
    assert len(hook.received) == 1
    assert "SECRET" not in "".join(capsys.readouterr())


@pytest.mark.parametrize("where", ["command line", "conf.py"])
def test_a_malformed_webhook_url_is_refused_without_echoing_it(
    where: str, archive: Path, tmp_path: Path, capsys
) -> None:
    secret = "hooks.example.org/SECRET"
    if where == "conf.py":
        docs = _conf(
            tmp_path / "docs",
            f"trending_sources = {{'perf': {{'paths': [{str(archive)!r}]}}}}\n"
            f"trending_webhook = {secret!r}\n",
        )
        assert main(["check", "--conf", str(docs)]) == 2
    else:
        with pytest.raises(SystemExit) as exited:
            main(["check", str(archive), "--webhook", secret])
        assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "expected an http:// or https:// URL" in err and "SECRET" not in err


def test_a_failed_e_mail_does_not_keep_the_webhook_message_back(
    archive: Path, tmp_path: Path, capsys
) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    mail = ["--send", "--email", str(tmp_path / "a.eml"), "--mail-from", "ci@example.org"]
    mail += ["--mail-to", "dev@example.org", "--smtp-host", "127.0.0.1"]
    mail += ["--smtp-port", str(port), "--smtp-security", "none"]
    with webhook_server() as hook:
        assert main(["check", str(archive), *mail, "--webhook", hook.url]) == 3
    assert len(hook.received) == 1
    err = capsys.readouterr().err
    assert "alert e-mail not sent" in err and "webhook" not in err


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--webhook-timeout", "0", "expected a number of seconds above 0, got '0'"),
        ("--webhook-timeout", "nan", "expected a number of seconds above 0, got 'nan'"),
        ("--webhook-retries", "-1", "expected a whole number of at least 0, got '-1'"),
    ],
)
def test_webhook_patience_must_make_sense(option: str, value: str, message: str, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["check", "p", option, value])
    assert exited.value.code == 2 and message in capsys.readouterr().err


def test_conf_py_templates_link_the_judged_build_in_json_and_junit(
    archive: Path, tmp_path: Path
) -> None:
    docs = _conf(
        tmp_path / "docs",
        f"trending_sources = {{'perf': {{'paths': [{str(archive)!r}]}}}}\n"
        "trending_build_url = 'https://ci.example.org/job/{job}/{build}/'\n"
        "trending_version_url = 'https://git.example.org/tag/{version}'\n",
    )
    target = tmp_path / "verdicts.json"
    junit = tmp_path / "junit.xml"
    assert main(["check", "--conf", str(docs), "--json", str(target), "--junit", str(junit)]) == 1
    records = json.loads(target.read_text())["verdicts"]
    job, build = NEWEST.split("/")
    assert {r["build_url"] for r in records} == {f"https://ci.example.org/job/{job}/{build}/"}
    assert f"build page: https://ci.example.org/job/{job}/{build}/" in junit.read_text()
    # the same pages as test-case properties, named as in the JSON
    cases = list(etree.parse(str(junit)).getroot().iter("testcase"))
    assert cases
    for case in cases:
        found = {item.get("name"): item.get("value") for item in case.iter("property")}
        assert found["build_url"] == f"https://ci.example.org/job/{job}/{build}/", found
        assert found["version_url"].startswith("https://git.example.org/tag/"), found


def test_a_regression_names_its_range_in_every_output(
    archive: Path, tmp_path: Path, capsys
) -> None:
    docs = _conf(
        tmp_path / "docs",
        f"trending_sources = {{'perf': {{'paths': [{str(archive)!r}]}}}}\n"
        "trending_build_url = 'https://ci.example.org/job/{job}/{build}/'\n"
        "trending_compare_url = 'https://git.example.org/compare/{last_good}...{first_bad}'\n",
    )
    target, junit, markdown = tmp_path / "v.json", tmp_path / "junit.xml", tmp_path / "s.md"
    outputs = ["--json", str(target), "--junit", str(junit), "--markdown", str(markdown)]
    assert main(["check", "--conf", str(docs), *outputs]) == 1
    job, build = NEWEST.split("/")
    good, bad = default_version(10), default_version(11)
    (regression,) = [r for r in json.loads(target.read_text())["verdicts"] if r["name"] == IP4_1C]
    assert regression["last_good"] == {
        "version": good,
        "build": f"{job}/11",
        "time": regression["last_good"]["time"],
        "build_url": f"https://ci.example.org/job/{job}/11/",
        "version_url": None,
    }
    assert regression["first_bad"]["build"] == NEWEST
    assert regression["first_bad"]["version"] == bad == regression["version"]
    compare = f"https://git.example.org/compare/{quote(good, safe='')}...{quote(bad, safe='')}"
    assert regression["compare_url"] == compare
    stdout = capsys.readouterr().out
    assert f"range {good} .. {bad}" in _rows(stdout)[IP4_1C][-1]
    assert f"compare page: {compare}" in junit.read_text()
    assert f"[{escape(f'{good} .. {bad}')}]({compare})" in markdown.read_text()
    assert f"[{NEWEST}](https://ci.example.org/job/{job}/{build}/)" in markdown.read_text()
