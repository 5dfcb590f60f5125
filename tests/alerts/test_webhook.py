"""The chat webhook: Slack's message shape, and delivery to a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import socket
from dataclasses import replace

import pytest

from sphinxcontrib_trending.alerts.slack import MAX_LINES, escape, payload
from sphinxcontrib_trending.alerts.webhook import WebhookError, WebhookSettings, post, redact
from sphinxcontrib_trending.analysis.verdicts import DEFAULT_FAIL_ON
from sphinxcontrib_trending.reports.records import GraphLinks
from tests.alerts.webhook_server import SECRET_PATH, Answer, webhook_server
from tests.reports.test_report_outputs import (
    EVERY,
    FAILED,
    HOSTILE,
    HOSTILE_VERSION,
    JOB,
    RANGE_LINKS,
    REGRESSION,
    ranged_regression,
)

LINKS = GraphLinks("https://docs.example.org")


def test_payload_has_a_text_and_blocks_of_the_anomalies() -> None:
    body = payload(EVERY, DEFAULT_FAIL_ON, LINKS)
    assert body["text"].startswith("Performance check FAIL: 3 regression, 1 failed")
    header, counts, *sections = body["blocks"]
    assert header == {"type": "header", "text": {"type": "plain_text", "text": body["text"]}}
    assert counts["text"]["text"].startswith("7 tests: 1 Normal, 3 Regression")
    texts = [section["text"]["text"] for section in sections]
    assert [text.splitlines()[0] for text in texts] == [
        "*Regressions (3)*",
        "*Failed tests (1)*",
        "*Progressions (1)*",
        "*Missings (1)*",
    ]
    assert f"• <{LINKS.url(REGRESSION)}|ip4 [2n-skx]> in {JOB}/30: trend 10.00 Mpps" in texts[0]


def test_data_cannot_make_links_mentions_or_lines() -> None:
    text = payload([FAILED], DEFAULT_FAIL_ON, GraphLinks())["blocks"][2]["text"]["text"]
    assert HOSTILE not in text and escape(HOSTILE) in text
    assert (
        escape("<!channel> a\nb & <https://x|y>")
        == "&lt;!channel&gt; a b &amp; &lt;https://x|y&gt;"
    )
    assert len(text.splitlines()) == 2


def test_long_sections_are_cut_and_counted() -> None:
    many = [
        replace(REGRESSION, history=replace(REGRESSION.history, name=f"t{k}"))
        for k in range(MAX_LINES + 4)
    ]
    text = payload(many, DEFAULT_FAIL_ON, LINKS)["blocks"][2]["text"]["text"]
    assert len(text.splitlines()) == 1 + MAX_LINES + 1 and text.endswith("… and 4 more")


def test_redact_keeps_scheme_and_host_only() -> None:
    assert redact("https://hooks.slack.com/services/T0/B0/xyz") == "https://hooks.slack.com/…"
    assert redact("https://user:pw@chat.example.org:8443/hooks/abc?token=1") == (
        "https://chat.example.org/…"
    )


def test_a_message_is_posted_as_json_once() -> None:
    body = payload(EVERY, DEFAULT_FAIL_ON, LINKS)
    with webhook_server() as hook:
        assert post(body, WebhookSettings(hook.url)) == 1
    assert hook.received == [body] and hook.paths == [SECRET_PATH]


def test_busy_servers_are_retried_after_doubling_pauses_or_retry_after() -> None:
    pauses: list[float] = []
    busy = (Answer(503, "busy"), Answer(429, "slow down", headers=(("Retry-After", "3"),)))
    with webhook_server(*busy, Answer(503), Answer(200)) as hook:
        settings = WebhookSettings(hook.url, retries=3, backoff=0.5)
        assert post({"text": "x"}, settings, sleep=pauses.append) == 4
    assert pauses == [0.5, 3.0, 2.0]  # the 429 asked for 3 s instead of 1 s
    assert len(hook.received) == 4


def test_giving_up_names_the_host_the_reply_and_the_attempts_never_the_secret() -> None:
    with (
        webhook_server(*[Answer(500, "internal\nerror")] * 3) as hook,
        pytest.raises(WebhookError) as raised,
    ):
        post({"text": "x"}, WebhookSettings(hook.url, retries=2), sleep=lambda _: None)
    message = str(raised.value)
    assert message == "http://127.0.0.1/…: HTTP 500 internal error (3 attempts)"
    assert len(hook.received) == 3


def test_a_refusal_is_not_retried() -> None:
    refused = r"^http://127.0.0.1/…: HTTP 404 no_service$"
    with (
        webhook_server(Answer(404, "no_service")) as hook,
        pytest.raises(WebhookError, match=refused),
    ):
        post({"text": "x"}, WebhookSettings(hook.url), sleep=lambda _: None)
    assert len(hook.received) == 1


def test_a_silent_server_times_out_and_is_retried() -> None:
    slow = Answer(200, delay=1.0)
    with webhook_server(slow, slow) as hook:
        settings = WebhookSettings(hook.url, timeout=0.2, retries=1)
        with pytest.raises(WebhookError) as raised:
            post({"text": "x"}, settings, sleep=lambda _: None)
    assert str(raised.value) == "http://127.0.0.1/…: no answer within 0.2 s (2 attempts)"
    assert len(hook.received) == 2


def test_an_unreachable_server_is_reported_without_the_secret() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    settings = WebhookSettings(f"http://127.0.0.1:{port}{SECRET_PATH}", retries=1)
    with pytest.raises(WebhookError) as raised:
        post({"text": "x"}, settings, sleep=lambda _: None)
    assert str(raised.value) == "http://127.0.0.1/…: cannot connect (2 attempts)"
    assert "SECRET" not in repr(raised.value) and raised.value.__cause__ is None


def test_a_regression_line_links_its_build_and_its_range() -> None:
    verdict = ranged_regression(HOSTILE_VERSION, "v2")
    text = payload([verdict], DEFAULT_FAIL_ON, RANGE_LINKS)["blocks"][2]["text"]["text"]
    compare = "https://git.example.org/compare/v1%22%3E%3Cscript%3Ealert%281%29%3C%2Fscript%3E%26x"
    assert f"in <https://ci.example.org/{JOB}/30|{JOB}/30>: trend" in text
    assert text.endswith(f", range <{compare}...v2|{escape(HOSTILE_VERSION)} .. v2>")
    assert "<script>" not in text
