"""Failure messages with their volatile tokens masked, so equal failures look equal.

The same failure on two testbeds, or in two builds, rarely has the same
message: it names the host's address, the NIC's MAC or PCI address, a
container id, the moment it happened.  Grouping failures by message, as the
per-build table and the alert e-mail do, needs those tokens replaced by a
placeholder that says what was there (``<IPv4>``, ``<MAC>``, ...), while the
words that tell failures apart (counts, commands, keywords) stay.

Order matters: a date would otherwise lose its digits to other rules, and
an IPv6 address its groups to the clock-time rule.  IPv6 candidates are
confirmed by :mod:`ipaddress`, so a clock time (``10:00:00``), a MAC or a
PCI address is never taken for one.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

_HEX = "[0-9A-Fa-f]"

_DATE_TIME = re.compile(
    r"\b(?:\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}:\d{2})?|\d{8}[T ]\d{2}:\d{2}:\d{2})"
    r"(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2}\b)?"
)
"""ISO dates and times, and Robot Framework's ``20240501 10:00:00.123``."""
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b")
_UUID = re.compile(rf"\b{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}\b")
_IPV6_CANDIDATE = re.compile(r"(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f.]{0,15}){2,8}(?![\w:])")
_PCI = re.compile(rf"\b{_HEX}{{4}}:{_HEX}{{2}}:{_HEX}{{2}}\.[0-7]\b")
_MAC = re.compile(rf"\b{_HEX}{{2}}(?P<sep>[:-]){_HEX}{{2}}(?:(?P=sep){_HEX}{{2}}){{4}}\b")
_IPV4 = re.compile(r"\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b")
_HEX_ID = re.compile(rf"\b0x{_HEX}+\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{{8,}}\b")
"""``0x...`` numbers, and lower-case hex strings of 8+ characters with a digit and a
letter (container ids, commit hashes); plain decimal numbers stay."""


def _ipv6(match: re.Match[str]) -> str:
    token = match.group(0)
    try:
        ipaddress.IPv6Address(token)
    except ValueError:
        return token
    return "<IPv6>"


_STEPS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (_DATE_TIME, "<TIME>"),
    (_UUID, "<UUID>"),
    (_IPV6_CANDIDATE, _ipv6),
    (_PCI, "<PCI>"),
    (_MAC, "<MAC>"),
    (_CLOCK, "<TIME>"),
    (_IPV4, "<IPv4>"),
    (_HEX_ID, "<HEX>"),
)
"""Each token with its placeholder, in the order they are masked."""


def mask(message: str) -> str:
    """The message with addresses, ids and timestamps replaced by placeholders."""
    for pattern, replacement in _STEPS:
        message = pattern.sub(replacement, message)
    return message
