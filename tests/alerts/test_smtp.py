"""deliver() against a real SMTP server on 127.0.0.1, in every security mode."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from sphinxcontrib_trending.alerts.smtp import DeliveryError, SmtpSettings, deliver


def _message(to: tuple[str, ...] = ("dev@example.org", "ops@example.org")) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = "[trending] FAIL: 1 regression"
    message["From"] = "ci@example.org"
    message["To"] = ", ".join(to)
    message.set_content("Regressions (1)\n  - ip4base: trend 12.50 Mpps -> 10.00 Mpps\n")
    return message


def _received(server: Any) -> EmailMessage:
    (envelope,) = server.recorder.envelopes
    parsed = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


@pytest.mark.parametrize("security", ["none", "starttls", "ssl"])
def test_delivers_to_every_recipient(
    start_smtp: Callable[..., Any], certificate: tuple[Path, Path], security: str
) -> None:
    server = start_smtp(security)
    settings = SmtpSettings(
        "127.0.0.1", server.port, security=security, ca_file=str(certificate[0]), timeout=10
    )
    deliver(_message(), settings, environ={})
    envelope = server.recorder.envelopes[0]
    assert envelope.mail_from == "ci@example.org"
    assert envelope.rcpt_tos == ["dev@example.org", "ops@example.org"]
    assert _received(server)["Subject"] == "[trending] FAIL: 1 regression"
    assert "12.50 Mpps -> 10.00 Mpps" in _received(server).get_content()


def test_login_takes_the_password_from_the_named_environment_variable(
    start_smtp: Callable[..., Any], certificate: tuple[Path, Path], credentials: tuple[str, str]
) -> None:
    user, password = credentials
    server = start_smtp("starttls", auth=True)
    settings = SmtpSettings(
        "127.0.0.1",
        server.port,
        security="starttls",
        user=user,
        password_env="MY_SMTP_PASSWORD",
        ca_file=str(certificate[0]),
        timeout=10,
    )
    deliver(_message(), settings, environ={"MY_SMTP_PASSWORD": password})
    assert server.recorder.logins == [(user, password)]
    assert len(server.recorder.envelopes) == 1


def test_wrong_password_is_a_clear_delivery_error(
    start_smtp: Callable[..., Any], certificate: tuple[Path, Path], credentials: tuple[str, str]
) -> None:
    server = start_smtp("starttls", auth=True)
    settings = SmtpSettings(
        "127.0.0.1", server.port, user=credentials[0], ca_file=str(certificate[0]), timeout=10
    )
    with pytest.raises(DeliveryError, match=r"login as 'ci-bot' refused: 535"):
        deliver(_message(), settings, environ={"SPHINX_TRENDING_SMTP_PASSWORD": "wrong"})
    assert server.recorder.envelopes == []


def test_missing_password_variable_fails_before_connecting(
    free_port: Callable[[], int],
) -> None:
    settings = SmtpSettings("127.0.0.1", free_port(), user="ci", password_env="UNSET_VARIABLE")
    with pytest.raises(DeliveryError, match="UNSET_VARIABLE"):
        deliver(_message(), settings, environ={})


def test_server_down_is_a_delivery_error_naming_the_address(
    free_port: Callable[[], int],
) -> None:
    port = free_port()
    settings = SmtpSettings("127.0.0.1", port, security="none", timeout=5)
    with pytest.raises(DeliveryError, match=rf"127\.0\.0\.1:{port} \(none\): .*refused"):
        deliver(_message(), settings, environ={})


def test_untrusted_certificate_is_refused(start_smtp: Callable[..., Any]) -> None:
    server = start_smtp("ssl")
    settings = SmtpSettings("127.0.0.1", server.port, security="ssl", timeout=10)
    with pytest.raises(DeliveryError, match="CERTIFICATE_VERIFY_FAILED"):
        deliver(_message(), settings, environ={})
    assert server.recorder.envelopes == []
