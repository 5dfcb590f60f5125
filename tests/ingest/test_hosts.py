"""The physical testbed hosts: CSIT node setup messages in Robot Framework, a JSON Lines field."""

from __future__ import annotations

from pathlib import Path

from tests.ingest.conftest import load_paths

RF6 = Path(__file__).parent.parent / "fixtures" / "rf6"

NEWER = """<?xml version="1.0" encoding="UTF-8"?>
<robot generator="Robot 7.0" generated="2024-05-01T02:00:00.000000" rpa="false">
<suite id="s1" name="Tests">
<kw name="Setup Framework" type="SETUP">
<msg level="INFO">Setup of node TG host 10.30.51.49, port 22 done.</msg>
<msg level="INFO">Setup of node DUT1 host 10.30.51.50, port 22 done.</msg>
<msg level="INFO">Setup of node TG host 10.30.51.49, port 22 done.</msg>
<status status="PASS" start="2024-05-01T01:00:00.000000" elapsed="1.0"/>
</kw>
<test id="s1-t1" name="tc01-64B-1c-ethip4-ip4base-mrr">
<tag>MRR</tag>
<status status="FAIL" start="2024-05-01T01:10:00.000000" elapsed="1.0">no traffic</status>
</test>
<status status="FAIL" start="2024-05-01T01:00:00.000000" elapsed="600.0"/>
</suite>
</robot>
"""


def test_older_wording_names_the_tg_host() -> None:
    (build,) = load_paths(RF6 / "csit-vpp-perf-mrr-daily-master__517__output_info.xml").builds
    assert {test.attribute("hosts") for test in build.tests} == {"10.30.51.49"}


def test_newer_wording_names_tg_and_dut_hosts_and_the_testbed(tmp_path: Path) -> None:
    path = tmp_path / "job__7__output_info.xml"
    path.write_text(NEWER, encoding="utf-8")
    (build,) = load_paths(path, testbed_map={"10.30.51.49": "2n-icx"}).builds
    (test,) = build.tests
    assert test.attribute("hosts") == "10.30.51.49 10.30.51.50"
    # the TG address of the newer wording finds the testbed too
    assert build.testbed == "2n-icx"


def test_json_lines_hosts_as_text_or_array(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    row = '{"test": "s.t", "build": %d, "time": "2026-01-0%dT00:00:00Z", "hosts": %s}\n'
    path.write_text(row % (1, 1, '"10.0.0.1 10.0.0.2"') + row % (2, 2, '["10.0.0.1", "10.0.0.3"]'))
    first, second = load_paths(path, format="jsonl").builds
    assert first.tests[0].attribute("hosts") == "10.0.0.1 10.0.0.2"
    assert second.tests[0].attribute("hosts") == "10.0.0.1 10.0.0.3"
