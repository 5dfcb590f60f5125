"""Posting an alert to a chat webhook, with a timeout, retries and back-off.

A webhook URL is a secret: whoever holds it can post into the channel, and
Slack embeds the credential in the path.  So no message of this module ever
carries more of it than :func:`redact` leaves (scheme and host), and the
exceptions of ``requests`` are never shown, as their text repeats the URL.

A chat service under load answers 429 or 5xx, and networks drop
connections: those attempts are retried after a doubling pause (or the
server's ``Retry-After``, within :data:`MAX_PAUSE`).  Any other answer
(403, 404: a revoked or mistyped URL) will not change on a retry and fails
at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests

from sphinxcontrib_trending.reports.text import visible

MAX_PAUSE = 60.0
"""The longest pause between two attempts, whatever the server asks for."""

REPLY_CHARS = 200
"""How much of a refusing server's reply is shown: enough for Slack's error word."""


class WebhookError(Exception):
    """The message could not be posted; the text names the host, never the whole URL."""


@dataclass(frozen=True)
class WebhookSettings:
    """Where to post and how patiently: ``retries`` attempts after the first one."""

    url: str
    timeout: float = 10.0
    retries: int = 3
    backoff: float = 1.0
    """The first pause in seconds; each further pause doubles it."""


def redact(url: str) -> str:
    """What may be printed of a webhook URL: its scheme and host, the rest elided."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    return f"{parts.scheme or '?'}://{host}/…"


def _retry_after(response: requests.Response) -> float:
    try:
        return float(response.headers.get("Retry-After", 0))
    except ValueError:
        return 0.0


def _retryable(status: int) -> bool:
    return status == 429 or status >= 500


def _reply(response: requests.Response) -> str:
    text = visible(" ".join(response.text.split()))
    return text[:REPLY_CHARS]


def post(
    body: dict[str, Any],
    settings: WebhookSettings,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Post ``body`` as JSON; returns the number of attempts it took, or raises WebhookError."""
    where = redact(settings.url)
    problem = ""
    pause = 0.0
    for attempt in range(settings.retries + 1):
        if attempt:
            sleep(min(MAX_PAUSE, max(settings.backoff * 2 ** (attempt - 1), pause)))
        pause = 0.0
        try:
            response = requests.post(
                settings.url, json=body, timeout=settings.timeout, allow_redirects=False
            )
        except requests.Timeout:
            problem = f"no answer within {settings.timeout:g} s"
            continue
        except requests.ConnectionError:
            problem = "cannot connect"
            continue
        except requests.RequestException as error:
            raise WebhookError(f"{where}: {type(error).__name__}") from None
        if response.ok:
            return attempt + 1
        problem = f"HTTP {response.status_code} {_reply(response)}".rstrip()
        if not _retryable(response.status_code):
            raise WebhookError(f"{where}: {problem}")
        pause = _retry_after(response)
    attempts = settings.retries + 1
    raise WebhookError(f"{where}: {problem} ({attempts} attempt{'s' if attempts > 1 else ''})")
