"""Delivering an alert over SMTP with the standard library's smtplib.

The password is read from an environment variable named by the user and
nowhere else: command lines show up in process lists and CI logs, and conf.py
lives in version control.  Every failure (refused connection, TLS, login,
rejected recipients) becomes one :class:`DeliveryError` with a readable
reason, so the caller can say so and keep the message on disk.  When only
some recipients are refused the message did go out: :func:`deliver` returns
a :class:`Delivery` saying, per recipient, who got it and why others did not.
"""

from __future__ import annotations

import os
import smtplib
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import getaddresses

SECURITIES = ("none", "starttls", "ssl")
DEFAULT_PORTS = {"none": 25, "starttls": 587, "ssl": 465}
DEFAULT_PASSWORD_ENV = "SPHINX_TRENDING_SMTP_PASSWORD"


class DeliveryError(Exception):
    """The alert could not be handed to the SMTP server (for no recipient)."""


@dataclass(frozen=True)
class Delivery:
    """Who the server accepted the message for, and the reply for each refused address."""

    accepted: tuple[str, ...]
    refused: dict[str, str]


@dataclass(frozen=True)
class SmtpSettings:
    """Where and how to deliver; holds the *name* of the password variable, never the password.

    ``port`` None means the usual port of ``security`` (25, 587 or 465).
    """

    host: str
    port: int | None = None
    security: str = "starttls"
    user: str | None = None
    password_env: str = DEFAULT_PASSWORD_ENV
    ca_file: str | None = None
    timeout: float = 30.0

    @property
    def effective_port(self) -> int:
        return self.port if self.port is not None else DEFAULT_PORTS[self.security]


def _password(settings: SmtpSettings, environ: Mapping[str, str]) -> str:
    password = environ.get(settings.password_env)
    if password is None:
        raise DeliveryError(
            f"--smtp-user is set but the environment variable {settings.password_env} "
            "holding the password is not"
        )
    return password


def _tls_context(settings: SmtpSettings) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=settings.ca_file)


def _connect(settings: SmtpSettings) -> smtplib.SMTP:
    if settings.security == "ssl":
        return smtplib.SMTP_SSL(
            settings.host,
            settings.effective_port,
            timeout=settings.timeout,
            context=_tls_context(settings),
        )
    client = smtplib.SMTP(settings.host, settings.effective_port, timeout=settings.timeout)
    if settings.security == "starttls":
        client.starttls(context=_tls_context(settings))
    return client


def deliver(
    message: EmailMessage,
    settings: SmtpSettings,
    environ: Mapping[str, str] | None = None,
) -> Delivery:
    """Send ``message`` to its recipients, or raise DeliveryError when none got it."""
    if settings.security not in SECURITIES:
        raise DeliveryError(f"unknown SMTP security {settings.security!r}")
    environ = os.environ if environ is None else environ
    password = _password(settings, environ) if settings.user else None
    where = f"{settings.host}:{settings.effective_port} ({settings.security})"
    try:
        with _connect(settings) as client:
            if settings.user and password is not None:
                client.login(settings.user, password)
            refused = client.send_message(message)
    except smtplib.SMTPAuthenticationError as error:
        raise DeliveryError(
            f"{where}: login as {settings.user!r} refused: {_reply(error)}"
        ) from None
    except smtplib.SMTPRecipientsRefused as error:
        raise DeliveryError(
            f"{where}: every recipient was refused: {', '.join(sorted(error.recipients))}"
        ) from None
    except smtplib.SMTPResponseException as error:
        raise DeliveryError(f"{where}: {_reply(error)}") from None
    except (smtplib.SMTPException, ssl.SSLError, OSError) as error:
        raise DeliveryError(f"{where}: {error or type(error).__name__}") from None
    reasons = {address: _reply_text(code, text) for address, (code, text) in refused.items()}
    return Delivery(tuple(a for a in _recipients(message) if a not in reasons), reasons)


def _recipients(message: EmailMessage) -> list[str]:
    fields = [str(value) for name in ("To", "Cc", "Bcc") for value in message.get_all(name, [])]
    return [address for _name, address in getaddresses(fields) if address]


def _reply(error: smtplib.SMTPResponseException) -> str:
    return _reply_text(error.smtp_code, error.smtp_error)


def _reply_text(code: int, text: bytes | str) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"{code} {text}"
