"""Host-stack test results as CSIT's Robot tests write them into the message.

Three shapes, all read into the ``hoststack_*`` metrics of
:mod:`~sphinxcontrib_trending.ingest.metrics`:

* iperf3 (``LDPRELOAD`` tests): the message is the JSON summary interval,
  ``{"seconds": 30.0, "bits_per_second": 9.4e9, "retransmits": 12, ...}``;
* VPP echo (``VPPECHO`` tests): the client's and then the server's JSON
  summary, back to back, ``{"role": "client", "time": "5.2", "tx_data":
  ...}{"role": "server", ...}``; goodput is the client's bytes over the
  average of both run times, as the reference computes it;
* VSAP/nginx (``LDP_NGINX`` tests), a block of lines:
  ``Transfer Rate: 1234.5 [Kbytes/sec]``, ``Latency: 1.2 ms``,
  ``Connection cps rate:5678 per sec``, ``Total data transferred: ...``,
  ``Completed requests: 100``, ``Failed requests: 0``.

Older messages wrote the JSON with single quotes; those are read too.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from sphinxcontrib_trending.ingest.model import Measurement

VSAP_PATTERN = (
    r"Transfer Rate:[ \t]*(?P<vsap_transfer>[^\s\[]+)[^\n]*\n\s*"
    r"Latency:[ \t]*(?P<vsap_latency>[^\s]+)[ \t]*(?P<vsap_latency_unit>[a-z]*)[^\n]*\n\s*"
    r"Connection (?P<vsap_kind>cps|rps) rate:[ \t]*(?P<vsap_rate>[^\s]+)[^\n]*\n\s*"
    r"Total data transferred:[^\n]*\n\s*"
    r"Completed requests:[ \t]*(?P<vsap_completed>[^\s]+)[^\n]*\n\s*"
    r"Failed requests:[ \t]*(?P<vsap_failed>[^\s]+)"
)
"""A branch of the message alternation (its group names start with ``vsap_``)."""

_BITS_PER_KBYTE = 8e3


def vsap_measurements(match: re.Match[str]) -> tuple[Measurement, ...]:
    """The VSAP block's metrics; ``ValueError`` if a number is not one."""
    transfer = _finite(match["vsap_transfer"], "transfer rate")
    return (
        Measurement("hoststack_bps", "bps", (transfer * _BITS_PER_KBYTE,)),
        Measurement(
            "hoststack_latency",
            match["vsap_latency_unit"] or "ms",
            (_finite(match["vsap_latency"], "latency"),),
        ),
        Measurement(
            "hoststack_rate",
            match["vsap_kind"].lower(),
            (_finite(match["vsap_rate"], "connection rate"),),
        ),
        Measurement(
            "hoststack_completed_requests",
            "requests",
            (_finite(match["vsap_completed"], "completed requests"),),
        ),
        Measurement(
            "hoststack_failed_requests",
            "requests",
            (_finite(match["vsap_failed"], "failed requests"),),
        ),
    )


def json_measurements(message: str) -> tuple[Measurement, ...] | None:
    """iperf3 or VPP echo results if the message is their JSON, else None.

    ``ValueError`` when the message is such JSON but a needed number is
    missing or not a number.
    """
    documents = _documents(message.strip())
    if documents is None:
        return None
    if len(documents) == 1 and "bits_per_second" in documents[0]:
        return _iperf3(documents[0])
    roles = {str(document.get("role", "")).lower(): document for document in documents}
    if len(documents) == 2 and {"client", "server"} <= roles.keys():
        return _vpp_echo(roles["client"], roles["server"])
    return None


def _documents(text: str) -> list[Mapping[str, Any]] | None:
    """Every JSON object of ``{...}{...}``; None unless the whole text is such objects."""
    if not text.startswith("{"):
        return None
    for candidate in (text, text.replace("'", '"')):
        decoder = json.JSONDecoder()
        documents: list[Mapping[str, Any]] = []
        at = 0
        try:
            while at < len(candidate):
                document, at = decoder.raw_decode(candidate, at)
                if not isinstance(document, dict):
                    break
                documents.append(document)
                while at < len(candidate) and candidate[at].isspace():
                    at += 1
            else:
                return documents
        except ValueError:
            continue
    return None


def _iperf3(summary: Mapping[str, Any]) -> tuple[Measurement, ...]:
    found = [Measurement("hoststack_bps", "bps", (_finite(summary["bits_per_second"], "bps"),))]
    if summary.get("seconds") is not None:
        found.append(
            Measurement("hoststack_duration", "s", (_finite(summary["seconds"], "seconds"),))
        )
    if summary.get("retransmits") is not None:
        retransmits = _finite(summary["retransmits"], "retransmits")
        found.append(Measurement("hoststack_retransmits", "packets", (retransmits,)))
    return tuple(found)


def _vpp_echo(client: Mapping[str, Any], server: Mapping[str, Any]) -> tuple[Measurement, ...]:
    try:
        sent, client_time, server_time = client["tx_data"], client["time"], server["time"]
    except KeyError as missing:
        raise ValueError(f"VPP echo result without {missing}") from None
    duration = (_finite(client_time, "client time") + _finite(server_time, "server time")) / 2
    if not duration > 0:
        raise ValueError(f"VPP echo result with run time {duration!r}")
    return (
        Measurement("hoststack_bps", "bps", (_finite(sent, "tx_data") * 8 / duration,)),
        Measurement("hoststack_duration", "s", (duration,)),
    )


def _finite(raw: Any, what: str) -> float:
    try:
        number = float(raw)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(raw, bool) or not math.isfinite(number):
        raise ValueError(f"host-stack {what} {raw!r} is not a number")
    return number
