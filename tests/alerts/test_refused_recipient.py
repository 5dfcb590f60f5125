"""One of two recipients refused: the other got the message, and each is reported."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import Envelope

from sphinxcontrib_trending.alerts.smtp import SmtpSettings, deliver
from sphinxcontrib_trending.cli import main

REFUSED = "ops@example.org"


class RefusingOne:
    """Accepts every recipient but :data:`REFUSED`, keeps every envelope."""

    def __init__(self) -> None:
        self.envelopes: list[Envelope] = []

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Envelope, address: str, options: Any
    ) -> str:
        if address == REFUSED:
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Envelope) -> str:
        self.envelopes.append(envelope)
        return "250 Message accepted for delivery"


@pytest.fixture
def server() -> Iterator[tuple[int, RefusingOne]]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    handler = RefusingOne()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    yield port, handler
    controller.stop()


def test_deliver_reports_each_recipient(server: tuple[int, RefusingOne]) -> None:
    port, handler = server
    message = EmailMessage()
    message["Subject"], message["From"] = "alert", "ci@example.org"
    message["To"] = f"dev@example.org, {REFUSED}"
    message.set_content("body")
    delivery = deliver(message, SmtpSettings("127.0.0.1", port, security="none", timeout=5), {})
    assert delivery.accepted == ("dev@example.org",)
    assert delivery.refused == {REFUSED: "550 5.1.1 mailbox unavailable"}
    assert [envelope.rcpt_tos for envelope in handler.envelopes] == [["dev@example.org"]]


def test_check_says_sent_to_one_and_refused_for_the_other(
    server: tuple[int, RefusingOne], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port, handler = server
    rows = [
        {"test": "s.t", "build": n, "time": f"2024-05-{n:02d}T00:00:00Z", "values": [1.0] * 3}
        for n in range(1, 6)
    ]
    data = tmp_path / "r.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    code = main(
        ["check", str(data), "--format", "jsonl", "--email", str(tmp_path / "m.eml"), "--send",
         "--smtp-host", "127.0.0.1", "--smtp-port", str(port), "--smtp-security", "none",
         "--mail-from", "ci@example.org", "--mail-to", "dev@example.org", "--mail-to", REFUSED]
    )  # fmt: skip
    assert code == 0  # the verdicts passed and the message went out
    captured = capsys.readouterr()
    assert "alert e-mail sent to dev@example.org" in captured.out
    assert f"alert e-mail not sent to {REFUSED}: the server refused it (550" in captured.err
    assert len(handler.envelopes) == 1
