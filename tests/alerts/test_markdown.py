"""The Markdown summary: outcome, sections with graph links, folded failures, escaping."""

from __future__ import annotations

from dataclasses import replace

from lxml import html
from markdown_it import MarkdownIt

from sphinxcontrib_trending.alerts.markdown import MAX_ROWS, escape, summary
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TrendOptions
from sphinxcontrib_trending.analysis.verdicts import DEFAULT_FAIL_ON, judge_latest
from sphinxcontrib_trending.reports.records import GraphLinks
from tests.hand_built import failing_last
from tests.reports.test_report_outputs import (
    EVERY,
    HOSTILE,
    HOSTILE_VERSION,
    JOB,
    NORMAL,
    RANGE_LINKS,
    REGRESSION,
    ranged_regression,
)

LINKS = GraphLinks("https://docs.example.org/perf")


def _html(text: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(text)


def test_outcome_counts_and_sections_worst_first() -> None:
    text = summary(EVERY, DEFAULT_FAIL_ON, LINKS)
    lines = text.splitlines()
    assert lines[0] == "### Performance check: FAIL"
    assert lines[2] == (
        "7 tests: 1 Normal, 3 Regression, 1 Progression, 1 Failed, 1 Missing -&gt; FAIL"
    )
    assert lines[4] == f"Judged: `{JOB}/30`"
    titles = [line for line in lines if line.startswith("**")]
    assert titles == [
        "**Regressions (3)**",
        "**Failed tests (1)**",
        "**Progressions (1)**",
        "**Missings (1)**",
    ]
    assert "stable" not in text


def test_regressions_link_to_their_graphs() -> None:
    text = summary([REGRESSION, NORMAL], DEFAULT_FAIL_ON, LINKS)
    row = next(line for line in text.splitlines() if "ip4" in line)
    assert row.startswith(f"| [ip4]({LINKS.url(REGRESSION)}) | 2n-skx | {JOB}/30 | -20.00 % |")
    assert f'<a href="{LINKS.url(REGRESSION)}">ip4</a>' in _html(text)
    assert "](" not in summary([REGRESSION], DEFAULT_FAIL_ON, GraphLinks())


def test_a_quiet_run_passes_without_tables() -> None:
    text = summary([NORMAL], DEFAULT_FAIL_ON, LINKS)
    assert text.startswith("### Performance check: PASS\n")
    assert "|" not in text and "Folded" not in text


def test_data_cannot_inject_markup_html_or_table_cells() -> None:
    name = f"{HOSTILE} | x [y](javascript:z) `q` *b*\nrow"
    hostile = replace(REGRESSION, history=replace(REGRESSION.history, name=name))
    document = html.fromstring(_html(summary([hostile], DEFAULT_FAIL_ON, LINKS)))
    rows = document.xpath("//tbody/tr")
    assert len(rows) == 1 and len(rows[0].xpath("td")) == 5
    link = rows[0].xpath("td[1]/a")[0]
    assert link.text_content() == name.replace("\n", " ")
    assert link.get("href") == LINKS.url(REGRESSION)
    injected = "//b | //em | //code[ancestor::td] | //a[starts-with(@href, 'java')]"
    assert document.xpath(injected) == []
    assert escape("a\\b*c") == "a\\\\b\\*c"


FOLDED_NAMES = (
    "64b-1t1c-ethip4-ip4base-mrr",
    "64b-2t1c-ethip4-ip4base-mrr",
    "imix-2t1c-ethip4-ip4base-mrr",
    "64b-1t1c-eth-l2xcbase-mrr",
)


def test_identical_failures_fold_into_one_row_and_the_summary_says_so() -> None:
    messages = {name: "TG 10.30.51.4 gave no answer" for name in FOLDED_NAMES}
    messages[FOLDED_NAMES[3]] = "Interface down"
    data = failing_last(FOLDED_NAMES, messages)
    verdicts = judge_latest("mrr", histories(data, "mrr", keep_failing=True), data, TrendOptions())
    text = summary(verdicts, DEFAULT_FAIL_ON, LINKS)
    assert "**Failed tests (4)**" in text
    rows = [line for line in text.splitlines() if line.startswith("| [")]
    assert len(rows) == 2
    assert any(
        row.startswith(
            "| [ethip4-ip4base-mrr \\(3 tests: frame size 64b, imix; cores 1t1c, 2t1c\\)]("
        )
        for row in rows
    )
    assert (
        "Folded: 3 failed tests with the same message, differing only in NIC, frame size or "
        "cores, are shown as 1 row." in text
    )


def test_long_sections_are_cut_and_counted() -> None:
    many = [
        replace(REGRESSION, history=replace(REGRESSION.history, name=f"t{k}"))
        for k in range(MAX_ROWS + 3)
    ]
    text = summary(many, DEFAULT_FAIL_ON, LINKS)
    assert sum(line.startswith("| [t") for line in text.splitlines()) == MAX_ROWS
    assert "… and 3 more (see the JSON report)." in text


def test_a_regression_shows_its_range_linked_to_the_commits_between() -> None:
    verdict = replace(ranged_regression(HOSTILE_VERSION, "v2"), version="v2")
    text = summary([verdict, NORMAL], DEFAULT_FAIL_ON, RANGE_LINKS)
    assert "| Test | Testbed | Build | Version | Range | Change | Details |" in text
    document = html.fromstring(_html(text))
    assert document.xpath("//script") == []
    hrefs = {a.text_content(): a.get("href") for a in document.xpath("//a")}
    assert hrefs[f"{HOSTILE_VERSION} .. v2"] == (
        "https://git.example.org/compare/v1%22%3E%3Cscript%3Ealert%281%29%3C%2Fscript%3E%26x...v2"
    )
    assert hrefs[f"{JOB}/30"] == f"https://ci.example.org/{JOB}/30"
    assert hrefs["v2"] == "https://git.example.org/tag/v2"


def test_sections_without_versions_or_ranges_leave_those_columns_out() -> None:
    text = summary([REGRESSION], DEFAULT_FAIL_ON, RANGE_LINKS)
    assert "| Test | Testbed | Build | Change | Details |" in text
