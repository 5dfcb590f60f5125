"""The gate's outputs on hand-built verdicts: text table, JSON document and JUnit XML.

The CLI tests run these end to end on generated archives; here each writer
gets verdicts written out by hand, so the exact words, numbers, order and
escaping are asserted without a robot run or a grouping in between.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest
from lxml import etree

from sphinxcontrib_trending.analysis import history as history_model
from sphinxcontrib_trending.analysis.change_range import ChangeRange
from sphinxcontrib_trending.analysis.verdicts import DEFAULT_FAIL_ON, BuildVerdicts, Reason, Verdict
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.reports.junit import (
    Case,
    Suite,
    junit_tree,
    verdict_case,
    write_junit,
)
from sphinxcontrib_trending.reports.records import (
    GraphLinks,
    describe,
    first_line,
    format_change,
    record,
)
from sphinxcontrib_trending.reports.text import columns, history_table, verdict_table
from sphinxcontrib_trending.reports.verdicts_json import SCHEMA, counts, document, write_json

TIME = datetime(2026, 1, 30, 6, 0, tzinfo=timezone.utc)
JOB = "job-2n-skx"
HOSTILE = '<b>"x" & y</b>'


def _history(name: str, unit: str | None = "pps", testbed: str | None = "2n-skx"):
    key = history_model.history_key(testbed, f"s.{name}")
    return history_model.TestHistory(
        key, f"s.{name}", name, "s", ("MRR",), testbed, "1T1C", "mrr", unit, ()
    )


def _verdict(name: str, reason: Reason, **fields) -> Verdict:
    unit = fields.pop("unit", "pps")
    return Verdict("perf", _history(name, unit), reason, JOB, "30", TIME, **fields)


REGRESSION = _verdict(
    "ip4", Reason.REGRESSION, value=7.9e6, trend=8e6, previous_trend=10e6, confidence=0.9994
)
BIG_REGRESSION = _verdict("l2", Reason.REGRESSION, value=4e6, trend=4e6, previous_trend=8e6)
FAILED = _verdict(HOSTILE, Reason.FAILED, message="link down on port 0\nsecond line")
PROGRESSION = _verdict("nat", Reason.PROGRESSION, value=6e6, trend=6e6, previous_trend=5e6)
MISSING = _verdict("gone", Reason.MISSING, message="not run in this build")
NORMAL = _verdict("stable", Reason.NORMAL, value=3.1e6, trend=3e6)
ACKNOWLEDGED = _verdict(
    "fw", Reason.REGRESSION, trend=9e6, previous_trend=10e6, acknowledged="new NIC firmware"
)
EVERY = [NORMAL, MISSING, PROGRESSION, FAILED, REGRESSION, BIG_REGRESSION, ACKNOWLEDGED]


def test_records_describe_in_display_units() -> None:
    assert describe(REGRESSION) == "trend 10.00 Mpps -> 8.00 Mpps (-20.00 %), confidence 0.999"
    assert format_change(PROGRESSION) == "+20.00 %"
    assert format_change(NORMAL) == ""
    assert describe(NORMAL) == "trend 3.00 Mpps"
    assert describe(FAILED) == "link down on port 0"
    assert describe(ACKNOWLEDGED).endswith(", acknowledged: new NIC firmware")
    seconds = _verdict("lat", Reason.NORMAL, trend=0.25, unit="s")
    assert describe(seconds) == "trend 0.25 s"
    assert first_line("x" * 300) == "x" * 199 + "…"


def test_graph_links_quote_the_page_and_use_the_directive_anchor() -> None:
    links = GraphLinks("https://ci.example.org/perf/", "trending graphs/")
    url = links.url(REGRESSION)
    assert (
        url == "https://ci.example.org/perf/trending%20graphs.html#trending-perf-mrr-2n-skx-s-ip4"
    )
    assert GraphLinks().url(REGRESSION) is None
    assert record(REGRESSION, links=links)["graph"] == url


def test_records_link_the_judged_build_and_where_the_new_group_started() -> None:
    started = history_model.Run(TIME, JOB, "27", "26.02 rc/1", "2n-skx", "PASS", "", (), 8e6, 0.0)
    persisting = replace(REGRESSION, since=started)
    templates = LinkTemplates(
        "https://ci.example.org/{job}/{build}", "https://git.example.org/{version}"
    )
    links = GraphLinks(pages={"perf": templates})
    facts = record(persisting, links=links)
    assert facts["build_url"] == f"https://ci.example.org/{JOB}/30"
    assert facts["since_build_url"] == f"https://ci.example.org/{JOB}/27"
    assert facts["since_version_url"] == "https://git.example.org/26.02%20rc%2F1"
    assert record(REGRESSION, links=links)["since_build_url"] is None  # no earlier start
    other_source = record(replace(persisting, source="ndr"), links=links)
    assert other_source["build_url"] is other_source["since_version_url"] is None
    case = verdict_case(persisting, DEFAULT_FAIL_ON, links)
    assert f"since build page: https://ci.example.org/{JOB}/27" in case.output


HOSTILE_VERSION = 'v1"><script>alert(1)</script>&x'
RANGE_LINKS = GraphLinks(
    pages={
        "perf": LinkTemplates(
            "https://ci.example.org/{job}/{build}",
            "https://git.example.org/tag/{version}",
            "https://git.example.org/compare/{last_good}...{first_bad}",
        )
    }
)


def ranged_regression(before: str | None, after: str | None) -> Verdict:
    good = history_model.Run(TIME, JOB, "29", before, "2n-skx", "PASS", "", (), 1e7, 0.0)
    bad = history_model.Run(TIME, JOB, "30", after, "2n-skx", "PASS", "", (), 8e6, 0.0)
    return replace(REGRESSION, change_range=ChangeRange(good, bad))


def test_a_change_names_its_range_and_links_the_commits_between() -> None:
    verdict = ranged_regression(HOSTILE_VERSION, "v2")
    facts = record(verdict, links=RANGE_LINKS)
    quoted = "v1%22%3E%3Cscript%3Ealert%281%29%3C%2Fscript%3E%26x"
    assert facts["last_good"] == {
        "version": HOSTILE_VERSION,
        "build": f"{JOB}/29",
        "time": TIME.isoformat(),
        "build_url": f"https://ci.example.org/{JOB}/29",
        "version_url": f"https://git.example.org/tag/{quoted}",
    }
    assert facts["first_bad"]["version"] == "v2"
    assert facts["compare_url"] == f"https://git.example.org/compare/{quoted}...v2"
    assert describe(verdict).endswith(f", range {HOSTILE_VERSION} .. v2")
    output = verdict_case(verdict, DEFAULT_FAIL_ON, RANGE_LINKS).output
    assert f"compare page: https://git.example.org/compare/{quoted}...v2" in output
    assert f"first bad build page: https://ci.example.org/{JOB}/30" in output


def test_a_range_within_one_version_or_without_one_links_no_comparison() -> None:
    assert record(ranged_regression("v2", "v2"), links=RANGE_LINKS)["compare_url"] is None
    unversioned = ranged_regression(None, "v2")
    assert record(unversioned, links=RANGE_LINKS)["compare_url"] is None
    assert describe(unversioned).endswith(f", range {JOB}/29 .. {JOB}/30")
    plain = record(REGRESSION, links=RANGE_LINKS)
    assert plain["last_good"] is plain["first_bad"] is plain["compare_url"] is None


def test_junit_keeps_a_hostile_range_well_formed(tmp_path: Path) -> None:
    verdict = ranged_regression(HOSTILE_VERSION, "v2")
    target = tmp_path / "junit.xml"
    case = verdict_case(verdict, DEFAULT_FAIL_ON, RANGE_LINKS)
    write_junit(target, junit_tree("check", [Suite("perf", [case])]))
    text = etree.parse(str(target)).findtext(".//system-out")
    assert f"range: {HOSTILE_VERSION} .. v2" in text
    assert "<script>" not in target.read_text()


def test_text_table_lists_worst_first_and_closes_with_the_counts() -> None:
    lines = verdict_table(EVERY, DEFAULT_FAIL_ON)
    assert lines[0].split() == ["Result", "Reason", "Test", "Build", "Value", "Details"]
    names = [_test_cell(line) for line in lines[1:-1]]
    # the larger drop first; the acknowledged regression does not fail; Normal is hidden
    assert names == [
        "l2 [2n-skx]",
        "ip4 [2n-skx]",
        "fw [2n-skx]",
        f"{HOSTILE} [2n-skx]",
        "nat [2n-skx]",
        "gone [2n-skx]",
    ]
    results = [line.split()[0] for line in lines[1:-1]]
    assert results == ["Fail", "Fail", "Pass", "Fail", "Pass", "Skip"]
    assert lines[-1] == (
        "7 tests: 1 Normal, 3 Regression, 1 Progression, 1 Failed, 1 Missing -> FAIL"
    )
    # columns line up: every row starts its Test cell at the same offset
    offsets = {line.index(_test_cell(line)) for line in lines[1:-1]}
    assert len(offsets) == 1
    assert all(line == line.rstrip() for line in lines)


def _test_cell(line: str) -> str:
    return next(cell for cell in line.split("  ") if "[2n-skx]" in cell).strip()


def test_text_table_verbose_shows_normal_and_an_all_normal_build_passes() -> None:
    assert any("stable [2n-skx]" in line for line in verdict_table([NORMAL], DEFAULT_FAIL_ON, True))
    assert verdict_table([NORMAL], DEFAULT_FAIL_ON) == ["1 tests: 1 Normal -> PASS"]
    assert verdict_table([], DEFAULT_FAIL_ON) == ["0 tests: none -> PASS"]
    labelled = verdict_table([REGRESSION], DEFAULT_FAIL_ON, show_source=True)
    assert "perf: ip4 [2n-skx]" in labelled[1]


def test_columns_pad_all_but_the_last_cell() -> None:
    assert columns([("a", "bbb", "c"), ("aaa", "b", "ccccc")]) == [
        "a    bbb  c",
        "aaa  b    ccccc",
    ]


def test_history_table_gives_a_quiet_build_one_line() -> None:
    quiet = BuildVerdicts(JOB, "29", TIME, (NORMAL,))
    loud = BuildVerdicts(JOB, "30", TIME, (REGRESSION, NORMAL))
    lines = history_table([loud, quiet], DEFAULT_FAIL_ON)
    assert lines[0] == f"== {loud.job_build} ({TIME.isoformat()})"
    assert lines[-1] == f"== {quiet.job_build} ({TIME.isoformat()}): 1 tests: 1 Normal -> PASS"
    assert "2 tests: 1 Normal, 1 Regression -> FAIL" in lines


def test_json_document_keeps_raw_numbers_and_every_reason_count(tmp_path: Path) -> None:
    not_a_number = _verdict("nan", Reason.NORMAL, value=math.nan, trend=math.inf)
    report = document(
        [REGRESSION, FAILED, not_a_number],
        DEFAULT_FAIL_ON,
        GraphLinks("https://x.org"),
        mode="latest",
        search="exact",
    )
    target = tmp_path / "report.json"
    write_json(target, report)
    text = target.read_text(encoding="utf-8")
    assert "NaN" not in text and "Infinity" not in text
    loaded = json.loads(text)
    assert loaded["schema"] == SCHEMA and loaded["result"] == "Fail"
    assert loaded["fail_on"] == ["Failed", "Regression"]
    assert list(loaded["counts"]) == [reason.value for reason in Reason]
    assert loaded["counts"]["Regression"] == 1 and loaded["counts"]["Missing"] == 0
    regression, failed, nan = loaded["verdicts"]
    assert regression["value"] == 7.9e6 and regression["unit"] == "pps"
    assert regression["change"] == pytest.approx(-0.2)
    assert regression["job_build"] == REGRESSION.job_build
    assert failed["name"] == HOSTILE and failed["message"] == "link down on port 0\nsecond line"
    assert (nan["value"], nan["trend"]) == (None, None)
    assert "history" not in loaded


def test_json_document_carries_the_history_and_keeps_non_ascii(tmp_path: Path) -> None:
    named = _verdict("débit-µs", Reason.NORMAL, trend=1e6)
    entry = BuildVerdicts(JOB, "30", TIME, (named,))
    report = document([named], DEFAULT_FAIL_ON, GraphLinks(), "all", history=[entry])
    assert report["result"] == "Pass"
    assert [h["job_build"] for h in report["history"]] == [entry.job_build]
    assert report["history"][0]["counts"]["Normal"] == 1
    target = tmp_path / "r.json"
    write_json(target, report)
    assert "débit-µs" in target.read_text(encoding="utf-8")


def test_counts_list_every_reason_in_a_fixed_order() -> None:
    assert counts([FAILED, FAILED, NORMAL]) == {
        "Normal": 1,
        "Regression": 0,
        "Progression": 0,
        "Maybe Regression": 0,
        "Maybe Progression": 0,
        "Failed": 2,
        "Missing": 0,
        "Outlier": 0,
    }


def test_junit_cases_fail_skip_or_pass_as_the_gate_does() -> None:
    links = GraphLinks("https://x.org")
    failing = verdict_case(REGRESSION, DEFAULT_FAIL_ON, links)
    assert failing.failure_type == "Regression"
    assert failing.classname == "perf.2n-skx.s" and failing.name == "ip4"
    assert failing.failure_message == f"Regression: {describe(REGRESSION)}"
    assert f"build: {REGRESSION.job_build}" in failing.output
    assert "graph: https://x.org/graphs.html#trending-perf-mrr-2n-skx-s-ip4" in failing.output
    failed = verdict_case(FAILED, DEFAULT_FAIL_ON, links)
    assert failed.details == "link down on port 0\nsecond line"
    skipped = verdict_case(MISSING, DEFAULT_FAIL_ON, links)
    assert (skipped.failure_type, skipped.skipped) == (None, "Missing: not run in this build")
    acknowledged = verdict_case(ACKNOWLEDGED, DEFAULT_FAIL_ON, links)
    assert (acknowledged.failure_type, acknowledged.skipped) == (None, None)


def test_junit_xml_totals_and_escaping(tmp_path: Path) -> None:
    links = GraphLinks()
    cases = [verdict_case(v, DEFAULT_FAIL_ON, links) for v in (REGRESSION, FAILED, MISSING)]
    cases.append(Case("perf", "ctl\x00\x1bchars", failure_type="Failed", details="a\x07b"))
    tree = junit_tree(
        "sphinx-trending check",
        [
            Suite("perf", cases, timestamp=TIME.replace(microsecond=123), properties=[("k", "v")]),
            Suite("empty", []),
        ],
    )
    target = tmp_path / "junit.xml"
    write_junit(target, tree)
    raw = target.read_bytes()
    assert raw.startswith(b"<?xml version='1.0' encoding='UTF-8'?>")
    assert b"&lt;b&gt;&quot;x&quot; &amp; y&lt;/b&gt;" in raw
    root = etree.fromstring(raw)
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("4", "3", "1")
    perf, empty = root.findall("testsuite")
    assert perf.get("timestamp") == "2026-01-30T06:00:00+00:00"
    assert [(p.get("name"), p.get("value")) for p in perf.iter("property")] == [("k", "v")]
    assert empty.get("tests") == "0"
    names = [case.get("name") for case in perf.iter("testcase")]
    assert names == ["ip4", HOSTILE, "gone", "ctlchars"]
    assert perf.findall("testcase")[3].find("failure").text == "ab"
