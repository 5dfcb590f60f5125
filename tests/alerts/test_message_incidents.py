"""The alert e-mail leads with incidents: one change of many tests, its members under it."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from urllib.parse import quote

from lxml import html

from sphinxcontrib_trending.alerts.markdown import summary
from sphinxcontrib_trending.alerts.message import Addresses, compose
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TrendOptions
from sphinxcontrib_trending.analysis.verdicts import DEFAULT_FAIL_ON, judge_latest
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.reports.records import GraphLinks
from tests.hand_built import JOB, builds

LAST = 12
ADDRESSES = Addresses("ci@example.org", ("dev@example.org",))
LEVELS = {
    "drop-a": lambda n: 10e6 if n < LAST else 8e6,
    "drop-b": lambda n: 10e6 if n < LAST else 7e6,
    "drop-<i>c</i>": lambda n: 10e6 if n < LAST else 9e6,
    "stable": lambda n: 9e6,
}


def _message() -> EmailMessage:
    data = builds(LEVELS, range(1, LAST + 1))
    verdicts = judge_latest("mrr", histories(data, "mrr"), data, TrendOptions())
    return compose(verdicts, DEFAULT_FAIL_ON, ADDRESSES, GraphLinks("https://d.example.org"))


def _parts(message: EmailMessage) -> tuple[str, str]:
    parsed = email.message_from_bytes(bytes(message), policy=email.policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed.get_body(("plain",)).get_content(), parsed.get_body(("html",)).get_content()


def test_the_text_part_lists_the_incident_before_the_sections() -> None:
    text, _ = _parts(_message())
    assert text.index("Incidents (1)") < text.index("Regressions (3)")
    headline = next(line for line in text.splitlines() if line.startswith("  * "))
    assert headline == (
        f"  * Regression (provisional): 3 tests since 26.02-rc0~{LAST} ({JOB}/{LAST}), "
        f"last good 26.02-rc0~{LAST - 1} ({JOB}/{LAST - 1}); "
        "change -20.00 % (-30.00 % to -10.00 %); "
        "shared: testbed 2n-skx, cores 2T1C, test type mrr"
    )
    members = [line.strip() for line in text.splitlines() if line.startswith("      - ")]
    assert members == [
        "- drop-b [2n-skx]: -30.00 %",
        "- drop-a [2n-skx]: -20.00 %",
        "- drop-<i>c</i> [2n-skx]: -10.00 %",
    ]


def test_the_html_part_nests_the_members_under_the_incident_escaped() -> None:
    _, body = _parts(_message())
    assert "<i>c</i>" not in body
    document = html.fromstring(body)
    incident = document.xpath("//li[@class='trending-regression']")
    assert len(incident) == 1
    names = [item.text_content() for item in incident[0].xpath("./ul/li")]
    assert names[2] == "drop-<i>c</i> [2n-skx]: -10.00 %"
    assert all(
        link.startswith("https://d.example.org/graphs.html#")
        for link in incident[0].xpath("./ul/li/a/@href")
    )


def test_the_markdown_summary_lists_the_incident_first_escaped() -> None:
    data = builds(LEVELS, range(1, LAST + 1))
    verdicts = judge_latest("mrr", histories(data, "mrr"), data, TrendOptions())
    text = summary(verdicts, DEFAULT_FAIL_ON, GraphLinks("https://d.example.org"))
    assert text.index("**Incidents (1)**") < text.index("**Regressions (3)**")
    lines = text.splitlines()
    headline = lines.index("**Incidents (1)**") + 2
    assert lines[headline].startswith("- Regression \\(provisional\\): 3 tests since")
    members = lines[headline + 1 : headline + 4]
    assert all(
        line.startswith("  - [") and "](https://d.example.org/graphs.html#" in line
        for line in members
    )
    assert "drop-&lt;i&gt;c&lt;/i&gt; \\[2n-skx\\]: -10.00 %" in members[2]


def test_both_parts_link_the_commits_between_when_a_template_says() -> None:
    data = builds(LEVELS, range(1, LAST + 1))
    verdicts = judge_latest("mrr", histories(data, "mrr"), data, TrendOptions())
    compare = LinkTemplates(compare="https://git.example.org/compare/{last_good}...{first_bad}")
    links = GraphLinks("https://d.example.org", pages={"mrr": compare})
    text, body = _parts(compose(verdicts, DEFAULT_FAIL_ON, ADDRESSES, links))
    commits = "https://git.example.org/compare/26.02-rc0~11...26.02-rc0~12"
    lines = text.splitlines()
    headline = next(index for index, line in enumerate(lines) if line.startswith("  * "))
    assert lines[headline + 1] == f"    commits: {quote(commits, safe=':/')}"
    incident = html.fromstring(body).xpath("//li[@class='trending-regression']")[0]
    assert incident.xpath("./a/@href") == [quote(commits, safe=":/")]
    assert incident.xpath("./a/text()") == ["commits"]
