"""The alert e-mail: sections, trend changes, links, and escaping of hostile names."""

from __future__ import annotations

import email
import email.policy
import re
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import quote

import pytest
from lxml import html

from sphinxcontrib_trending.alerts.message import Addresses, compose
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.identity import SeriesTarget
from sphinxcontrib_trending.analysis.summary import TrendOptions
from sphinxcontrib_trending.analysis.verdicts import DEFAULT_FAIL_ON, Verdict, judge_latest
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.ingest import SourceSpec, load
from sphinxcontrib_trending.reports.records import GraphLinks
from tests.archives import ArchiveCache
from tests.hand_built import JOB, failing_last
from tests.reports.test_report_outputs import HOSTILE_VERSION, RANGE_LINKS, ranged_regression
from tools.make_robot_archive import DEFAULT_JOB, DEFAULT_TESTS, Change, TestPlan

HOSTILE = '<script>alert("x")</script> & <b>co</b>'
PLANS = (
    *DEFAULT_TESTS[:3],
    TestPlan(DEFAULT_TESTS[0].suite, HOSTILE, ("MRR", "1T1C"), base=5e6),
)
ADDRESSES = Addresses("ci@example.org", ("dev@example.org", "ops@example.org"))


@pytest.fixture(scope="module")
def verdicts(robot_archive: ArchiveCache) -> list[Verdict]:
    """Newest build 8: the hostile test regresses 30 %, the 2t1c test fails,
    the l2 test gains 40 %."""
    folder = robot_archive(
        builds=8,
        tests=PLANS,
        changes=[Change(HOSTILE, 7, 0.7), Change(PLANS[2].name, 7, 1.4)],
        failures=[(PLANS[1].name, 7)],
        seed=5,
    )
    dataset = load(SourceSpec(paths=(str(folder),)))
    return judge_latest("mrr", histories(dataset.builds, "mrr"), dataset.builds, TrendOptions())


def _parts(message: EmailMessage) -> tuple[str, str]:
    parsed = email.message_from_bytes(bytes(message), policy=email.policy.default)
    assert isinstance(parsed, EmailMessage)
    return (
        parsed.get_body(("plain",)).get_content(),
        parsed.get_body(("html",)).get_content(),
    )


def test_headers_and_sections(verdicts: list[Verdict]) -> None:
    message = compose(verdicts, DEFAULT_FAIL_ON, ADDRESSES)
    assert message["From"] == "ci@example.org"
    assert message["To"] == "dev@example.org, ops@example.org"
    assert message["Subject"] == (
        f"[trending] FAIL: 1 regression, 1 failed, 1 progression in {DEFAULT_JOB}/8"
    )
    assert message["Date"] and message["Message-ID"].endswith("@example.org>")
    assert message.is_multipart() and message.get_content_type() == "multipart/alternative"
    text, _ = _parts(message)
    order = [
        text.index(title) for title in ("Regressions (1)", "Failed tests (1)", "Progressions (1)")
    ]
    assert order == sorted(order)
    assert "4 tests: 1 Normal, 1 Regression, 1 Progression, 1 Failed -> FAIL" in text
    regression_line = next(
        line for line in text.splitlines() if "<script>" in line and "trend" in line
    )
    found = re.search(r"trend ([\d.]+) Mpps -> ([\d.]+) Mpps \(([-+][\d.]+) %\)", regression_line)
    assert found is not None, regression_line
    before, after, change = map(float, found.groups())
    assert before == pytest.approx(5.0, rel=0.02) and after == pytest.approx(3.5, rel=0.03)
    assert change == pytest.approx(100 * (after - before) / before, abs=0.1)
    assert "link down on port 0" in text


def test_every_data_string_is_escaped_in_html(verdicts: list[Verdict]) -> None:
    message = compose(verdicts, DEFAULT_FAIL_ON, ADDRESSES, GraphLinks("https://d.example.org"))
    _, body = _parts(message)
    assert "<script>" not in body and "<b>co</b>" not in body
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;b&gt;co&lt;/b&gt;" in body
    document = html.fromstring(body)
    assert document.xpath("//script") == [] and document.xpath("//td//b") == []
    cells = [cell.text_content() for cell in document.xpath("//td")]
    hostile = next(v for v in verdicts if v.history.name == HOSTILE)
    assert hostile.history.display_name in cells


def test_links_point_at_each_tests_graph_anchor(verdicts: list[Verdict]) -> None:
    links = GraphLinks("https://d.example.org/trending/", "perf/graphs")
    _, body = _parts(compose(verdicts, DEFAULT_FAIL_ON, ADDRESSES, links))
    document = html.fromstring(body)
    hrefs = {anchor.text_content(): anchor.get("href") for anchor in document.xpath("//td//a")}
    hostile = next(v for v in verdicts if v.history.name == HOSTILE)
    assert hrefs[hostile.history.display_name] == (
        "https://d.example.org/trending/perf/graphs.html#"
        + SeriesTarget("mrr", hostile.history.ref).anchor
    )
    assert len(hrefs) == 3
    # The incidents' member tests link to the same graphs.
    listed = {anchor.get("href") for anchor in document.xpath("//li//a")}
    assert hrefs[hostile.history.display_name] in listed
    _, plain = _parts(compose(verdicts, DEFAULT_FAIL_ON, ADDRESSES))
    assert "<a " not in plain and "href" not in html.tostring(html.fromstring(plain)).decode()


def test_a_quiet_run_says_pass_and_lists_nothing(verdicts: list[Verdict]) -> None:
    normal = [v for v in verdicts if v.reason.value == "Normal"]
    message = compose(normal, DEFAULT_FAIL_ON, ADDRESSES)
    text, _ = _parts(message)
    assert message["Subject"] == f"[trending] PASS: no change in {DEFAULT_JOB}/8"
    assert "Regressions" not in text and "1 tests: 1 Normal -> PASS" in text


def test_header_values_from_data_cannot_inject_headers(
    verdicts: list[Verdict], tmp_path: Path
) -> None:
    message = compose(verdicts, DEFAULT_FAIL_ON, ADDRESSES, subject_prefix="[a]\nBcc: x@evil.org")
    assert "\n" not in message["Subject"]
    target = tmp_path / "m.eml"
    target.write_bytes(bytes(message))
    parsed = email.message_from_bytes(target.read_bytes(), policy=email.policy.default)
    assert parsed["Bcc"] is None


FOLDED_NAMES = (
    "64b-1t1c-ethip4-ip4base-mrr",
    "64b-2t1c-ethip4-ip4base-mrr",
    "imix-2t1c-ethip4-ip4base-mrr",
    "64b-1t1c-eth-l2xcbase-mrr",
)
DOWN = "<b>TG</b> 10.30.51.{} gave no answer"


def test_identical_failures_fold_into_one_line_with_the_count() -> None:
    messages = {name: DOWN.format(40 + k) for k, name in enumerate(FOLDED_NAMES)}
    messages[FOLDED_NAMES[3]] = "Interface down on 10.30.51.49"
    data = failing_last(FOLDED_NAMES, messages)
    verdicts = judge_latest("mrr", histories(data, "mrr", keep_failing=True), data, TrendOptions())
    message = compose(
        verdicts, DEFAULT_FAIL_ON, Addresses("ci@example.org", ()), GraphLinks("https://d.org")
    )
    assert message["Subject"] == f"[trending] FAIL: 4 failed in {JOB}/5"
    text, body = _parts(message)
    assert "Failed tests (4)" in text
    lines = [line for line in text.splitlines() if line.startswith("  - ")]
    assert lines == [
        f"  - 64b-1t1c-eth-l2xcbase-mrr [2n-skx] in {JOB}/5: Interface down on 10.30.51.49",
        "  - ethip4-ip4base-mrr (3 tests: frame size 64b, imix; cores 1t1c, 2t1c) [2n-skx] "
        f"in {JOB}/5: <b>TG</b> <IPv4> gave no answer",
    ]
    document = html.fromstring(body)
    assert document.xpath("//td//b") == []
    cells = [cell.text_content() for cell in document.xpath("//td")]
    assert "<b>TG</b> <IPv4> gave no answer" in cells
    assert "ethip4-ip4base-mrr (3 tests: frame size 64b, imix; cores 1t1c, 2t1c)" in cells
    assert "Failed tests (4)" in document.text_content()


TEMPLATES = LinkTemplates(
    "https://ci.example.org/{job}/{build}",
    "https://git.example.org/tag/{version}",
    "https://git.example.org/compare/{last_good}...{first_bad}",
)


def test_a_regression_names_its_range_and_links_build_version_and_commits(
    verdicts: list[Verdict],
) -> None:
    links = GraphLinks(pages={"mrr": TEMPLATES})
    hostile = next(v for v in verdicts if v.history.name == HOSTILE)
    found = hostile.change_range
    assert found is not None and found.first_bad.build == hostile.build
    before, after = found.versions
    text, body = _parts(compose(verdicts, DEFAULT_FAIL_ON, ADDRESSES, links))
    hrefs = {a.text_content(): a.get("href") for a in html.fromstring(body).xpath("//a")}
    quoted = {version: quote(version, safe="") for version in (before, after)}
    assert hrefs[f"{before} .. {after}"] == (
        f"https://git.example.org/compare/{quoted[before]}...{quoted[after]}"
    )
    assert hrefs[hostile.job_build] == f"https://ci.example.org/{DEFAULT_JOB}/{hostile.build}"
    assert hrefs[after] == f"https://git.example.org/tag/{quoted[after]}"
    assert f"    range: {before} .. {after} https://git.example.org/compare/" in text
    assert f"    build: https://ci.example.org/{DEFAULT_JOB}/{hostile.build}" in text


def test_a_hostile_version_stays_text_in_the_html_and_quoted_in_links() -> None:
    verdict = ranged_regression(HOSTILE_VERSION, "v2")
    text, body = _parts(compose([verdict], DEFAULT_FAIL_ON, ADDRESSES, RANGE_LINKS))
    assert "<script>" not in body
    document = html.fromstring(body)
    assert document.xpath("//script") == []
    (anchor,) = [a for a in document.xpath("//a") if a.text_content().endswith(" .. v2")]
    assert anchor.text_content() == f"{HOSTILE_VERSION} .. v2"
    assert anchor.get("href").startswith("https://git.example.org/compare/v1%22%3E%3Cscript")
    assert f"range: {HOSTILE_VERSION} .. v2" in text
