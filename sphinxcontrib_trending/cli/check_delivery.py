"""Sending ``check``'s alerts: the e-mail over SMTP and the chat webhook message.

Each says on stdout where its message went and on stderr why it did not,
and returns whether it was delivered, so that ``check`` tries every channel
before it turns a failure into its exit status.
"""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from sphinxcontrib_trending.alerts.smtp import DeliveryError, SmtpSettings, deliver
from sphinxcontrib_trending.alerts.webhook import WebhookError, WebhookSettings, post, redact

Report = Callable[[str], None]
"""Where a failure is said (stderr, made visible)."""


def send_mail(
    message: EmailMessage, smtp: SmtpSettings, kept_in: Path | None, error: Report
) -> bool:
    """Deliver the alert e-mail; False when nobody got it (the file keeps it)."""
    try:
        delivery = deliver(message, smtp)
    except DeliveryError as problem:
        error(f"alert e-mail not sent: {problem}; the message is kept in {kept_in}")
        return False
    print(f"alert e-mail sent to {', '.join(delivery.accepted)}")
    for address, reply in delivery.refused.items():
        error(f"alert e-mail not sent to {address}: the server refused it ({reply})")
    return True


def post_webhook(body: dict[str, Any], hook: WebhookSettings, error: Report) -> bool:
    """Post the webhook message, naming only the URL's scheme and host either way."""
    try:
        post(body, hook)
    except WebhookError as problem:
        error(f"webhook message not sent: {problem}")
        return False
    print(f"webhook message posted to {redact(hook.url)}")
    return True
