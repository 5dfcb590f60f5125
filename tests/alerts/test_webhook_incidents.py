"""The chat message leads with incidents, like the e-mail: each change of many tests once,
its member tests under it, data escaped; posted to a real HTTP server on 127.0.0.1."""

from __future__ import annotations

from typing import Any

from sphinxcontrib_trending.alerts.slack import MAX_LINES, payload
from sphinxcontrib_trending.alerts.webhook import WebhookSettings, post
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TrendOptions
from sphinxcontrib_trending.analysis.verdicts import DEFAULT_FAIL_ON, judge_latest
from sphinxcontrib_trending.reports.records import GraphLinks
from tests.alerts.test_message_incidents import LAST, LEVELS
from tests.alerts.webhook_server import webhook_server
from tests.hand_built import JOB, builds

LINKS = GraphLinks("https://d.example.org")


def _texts(levels: dict[str, Any]) -> list[str]:
    """The mrkdwn of each block after the header, as the server received it."""
    data = builds(levels, range(1, LAST + 1))
    verdicts = judge_latest("mrr", histories(data, "mrr"), data, TrendOptions())
    with webhook_server() as hook:
        post(payload(verdicts, DEFAULT_FAIL_ON, LINKS), WebhookSettings(hook.url))
    (received,) = hook.received
    return [block["text"]["text"] for block in received["blocks"][1:]]


def test_the_incident_comes_before_the_sections_with_its_members_under_it() -> None:
    _counts, title, incident, *sections = _texts(LEVELS)
    assert title == "*Incidents (1)*"
    assert sections[0].startswith("*Regressions (3)*")
    headline, *members = incident.splitlines()
    assert headline == (
        f"• Regression (provisional): 3 tests since 26.02-rc0~{LAST} ({JOB}/{LAST}), "
        f"last good 26.02-rc0~{LAST - 1} ({JOB}/{LAST - 1}); "
        "change -20.00 % (-30.00 % to -10.00 %); "
        "shared: testbed 2n-skx, cores 2T1C, test type mrr"
    )
    assert len(members) == 3
    assert all(line.startswith("    ◦ <https://d.example.org/graphs.html#") for line in members)
    # The hostile name is text, not markup: no tag, no link of its own.
    assert members[2].endswith("|drop-&lt;i&gt;c&lt;/i&gt; [2n-skx]: -10.00 %>")
    assert "<i>" not in incident


def test_an_incident_of_many_tests_lists_some_and_counts_the_rest() -> None:
    extra = 4
    levels = {f"drop-{k}": (lambda n: 10e6 if n < LAST else 8e6) for k in range(MAX_LINES + extra)}
    _counts, _title, incident, *_sections = _texts(levels)
    lines = incident.splitlines()
    assert len(lines) == 1 + MAX_LINES + 1
    assert lines[-1] == f"    ◦ … and {extra} more"


def test_without_a_change_there_is_no_incident_block() -> None:
    assert _texts({"stable": lambda n: 9e6, "steady": lambda n: 8e6})[1:] == []
