"""What a test's message and tags say: measurements, identity, thread/core.

The CSIT convention puts every result in the test message (Robot Framework
has no structured result field), so this module owns the patterns of that
convention.  Metric names are short and stable because they are what users
select in directives and what export writes:

==========================  =====  ==============================================
metric                      unit   message form
==========================  =====  ==============================================
``mrr``                     pps    ``... trial results in packets per second:
                                   [v1, v2, ...]``
``mrr``                     pps    legacy ``MaxReceivedRate_Results [pkts/Nsec]:
                                   tx A, rx B`` (one value, rx / N)
``cps``                     cps    ``... trial results in [estimated] connections
                                   per second: [...]``
``ndr``, ``pdr``            pps    ``NDR: <v> pps, <g> Gbps (initial)`` (``cps``
                                   for ``NDR: <v> CPS``); legacy ``NDR_LOWER:
                                   <v> pps, <g> Gbps``
``ndr_upper``               pps    legacy ``NDR_UPPER: <v> pps`` (``PDR_UPPER``
                                   alike)
``ndr_bandwidth``           bps    the ``<g> Gbps`` of the ``NDR`` or
                                   ``NDR_LOWER`` line, times 1e9 (PDR alike)
``latency_pdr<L>_<D>_<S>``  us     ``Latency at L% PDR: ['min/avg/max/hdrh', ...]``
                                   (L in 90, 50, 10, 0; first stream forward,
                                   second reverse; older ``Latency at 0%:``);
                                   -1 means not measured
``latency_ndr_<D>_<S>``     us     ``LATENCY [min/avg/max/hdrh] per stream: [...]``
                                   after the ``NDR`` (``NDR_LOWER``) line;
                                   ``latency_pdr_<D>_<S>`` after ``PDR``; older
                                   ``LATENCY usec [min/avg/max]: [...]``
``..._p50`` ... ``_p999``   us     percentiles of each stream's ``hdrh``
``soak_lower``, ``_upper``  pps    ``PLRsearch lower bound: <v> pps, ...`` (``cps``
                                   for ``CPS``; legacy ``bound::``)
``reconf_loss``             pkts   ``Packets lost due to reconfig: <n>``
``reconf_time_lost``        s      ``Implied time lost: <t>``
``hoststack_*``             ...    iperf3 or VPP echo JSON, or the VSAP block
                                   (:mod:`~sphinxcontrib_trending.ingest.hoststack_messages`)
==========================  =====  ==============================================
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from sphinxcontrib_trending.ingest.hoststack_messages import (
    VSAP_PATTERN,
    json_measurements,
    vsap_measurements,
)
from sphinxcontrib_trending.ingest.latency_streams import read_streams
from sphinxcontrib_trending.ingest.model import Measurement

# One alternation, so a message is scanned once whatever it holds.
_RESULT = re.compile(
    r"trial results in (?P<what>packets|(?:estimated )?connections) per second:\s*"
    r"(?P<list>[^\]\n]*\]?)"
    r"|MaxReceivedRate_Results\s*\[pkts/(?P<seconds>\d+(?:\.\d+)?)sec\]:\s*"
    r"tx\s+(?P<tx>[^\s,]+),\s*rx\s+(?P<rx>[^\s,]+)"
    r"|\b(?P<bound>NDR|PDR)(?:_(?P<edge>LOWER|UPPER))?:[ \t]*(?P<value>[^\s,]+)[ \t]*"
    r"(?P<rate_unit>pps|cps)\b(?:,[ \t]*(?P<gbps>[^\s,]+)[ \t]*Gbps)?"
    r"|\bLatency at (?P<load>90|50|10|0)%(?: PDR)?:[ \t]*\[(?P<streams>[^\]\n]*)\]"
    r"|\bLATENCY(?: usec)? \[min/avg/max(?:/hdrh)?\](?: per stream)?:[ \t]*"
    r"\[(?P<bound_streams>[^\]\n]*)\]"
    r"|\bPLRsearch (?P<plr>lower|upper) bound::?[ \t]*(?P<plr_value>[^\s,]+)[ \t]*"
    r"(?P<plr_unit>pps|cps)?"
    r"|\bPackets lost due to reconfig:[ \t]*(?P<reconf_loss>[^\s,]+)"
    r"|\bImplied time lost:[ \t]*(?P<reconf_time>[^\s,]+)"
    rf"|{VSAP_PATTERN}",
    re.IGNORECASE,
)
_TRIAL_METRICS = {"packets": ("mrr", "pps"), "connections": ("cps", "cps")}
_SEPARATORS = re.compile(r"[,;\s]+")
_TC_PREFIX = re.compile(r"^tc\d+-", re.IGNORECASE)
_THREAD_CORE = re.compile(r"\d+T\d+C", re.IGNORECASE)
_CORES_ONLY = re.compile(r"\d+C", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class MessageResults:
    """Measurements read from one message, and why some could not be read."""

    measurements: tuple[Measurement, ...]
    errors: tuple[str, ...]
    attributes: tuple[tuple[str, str], ...] = ()
    """Text worth keeping beside the numbers: each latency's ``{base}_hdrh`` string."""


def strip_tc_prefix(name: str) -> str:
    """``tc01-64b-1c-eth`` -> ``64b-1c-eth``: CSIT renumbers tests over time."""
    prefix = _TC_PREFIX.match(name)
    return name[prefix.end() :] if prefix else name


def make_test_id(long_name: str) -> str:
    """Stable identity of a test across builds: lower-cased, no ``tcNN-``."""
    return ".".join(strip_tc_prefix(part) for part in long_name.lower().split("."))


def thread_core(tags: tuple[str, ...]) -> str | None:
    """The ``2T1C``-style tag (older archives: ``2C``), upper-cased."""
    for pattern in (_THREAD_CORE, _CORES_ONLY):
        for tag in tags:
            if pattern.fullmatch(tag):
                return tag.upper()
    return None


def parse_number_list(text: str, *, bracketed: bool = False) -> tuple[float, ...]:
    """``[1.0, 2e6]`` or ``1.0;2e6`` or ``1 2``: every item must be a finite number.

    Raises ``ValueError`` naming the offending item, because a silently
    shortened trial list would bias the run average.  ``bracketed`` demands
    the ``[...]`` of the Robot message form.
    """
    body = text.strip()
    if bracketed and not body.startswith("["):
        raise ValueError(f"expected [v1, v2, ...], found {body[:40]!r}")
    if body.startswith("["):
        if not body.endswith("]"):
            raise ValueError(f"unterminated list {text.strip()!r}")
        body = body[1:-1]
    try:  # fast path: the comma-separated form every CSIT message uses (or a table's ";")
        values = tuple(map(float, body.replace(";", ",").split(",")))
    except ValueError:
        values = tuple(_checked_float(item) for item in _SEPARATORS.split(body) if item)
    if not values:
        raise ValueError("empty list of values")
    if not all(map(math.isfinite, values)):
        bad = next(value for value in values if not math.isfinite(value))
        raise ValueError(f"{bad!r} is not finite")
    return values


def _checked_float(item: str) -> float:
    try:
        return float(item)
    except ValueError:
        raise ValueError(f"{item!r} is not a number") from None


def _legacy_rate(match: re.Match[str]) -> float:
    try:
        seconds, rx = float(match["seconds"]), float(match["rx"])
    except ValueError:
        seconds = rx = math.nan
    if not seconds > 0 or not math.isfinite(rx):
        raise ValueError(f"bad legacy MRR result {match.group(0)!r}")
    return rx / seconds


class _MessageReader:
    """One message's matches in document order, remembering the last NDR/PDR line.

    ``LATENCY [min/avg/max/hdrh] per stream`` belongs to the bound printed
    just before it (``NDR``/``NDR_LOWER`` or ``PDR``/``PDR_LOWER``), so the
    reader carries that bound from one match to the next.
    """

    def __init__(self) -> None:
        self.measurements: list[Measurement] = []
        self.attributes: list[tuple[str, str]] = []
        self.errors: list[str] = []
        self.last_bound: str | None = None

    def read(self, match: re.Match[str]) -> None:
        try:
            self.measurements.extend(self._measure(match))
        except ValueError as error:
            self.errors.append(str(error))

    def _measure(self, match: re.Match[str]) -> tuple[Measurement, ...]:
        """What one match of :data:`_RESULT` stands for (``ValueError`` if malformed)."""
        if match["what"] is not None:
            metric, unit = _TRIAL_METRICS[match["what"].split()[-1].lower()]
            try:
                return (
                    Measurement(metric, unit, parse_number_list(match["list"], bracketed=True)),
                )
            except ValueError as error:
                raise ValueError(f"malformed {metric} trial list: {error}") from None
        if match["bound"] is not None:
            self.last_bound = match["bound"].lower()
            return _search_bound(match)
        if match["load"] is not None:
            load = match["load"]
            return self._latencies(f"pdr{load}", match["streams"], f"latency at {load}% PDR")
        if match["bound_streams"] is not None:
            if self.last_bound is None:
                raise ValueError("LATENCY per stream with no NDR or PDR line before it")
            what = f"LATENCY per stream at {self.last_bound.upper()}"
            return self._latencies(self.last_bound, match["bound_streams"], what)
        if match["plr"] is not None:
            unit = (match["plr_unit"] or "pps").lower()
            value = _single(match["plr_value"], f"PLRsearch {match['plr']} bound")
            return (Measurement(f"soak_{match['plr'].lower()}", unit, (value,)),)
        if match["reconf_loss"] is not None:
            loss = _single(match["reconf_loss"], "reconf packet loss")
            return (Measurement("reconf_loss", "packets", (loss,)),)
        if match["reconf_time"] is not None:
            lost = _single(match["reconf_time"], "implied time lost")
            return (Measurement("reconf_time_lost", "s", (lost,)),)
        if match["vsap_transfer"] is not None:
            return vsap_measurements(match)
        return (Measurement("mrr", "pps", (_legacy_rate(match),)),)

    def _latencies(self, place: str, streams: str, what: str) -> tuple[Measurement, ...]:
        found = read_streams(place, streams, what)
        self.attributes.extend(found.histograms)
        self.errors.extend(found.errors)
        return found.measurements


def _single(text: str, what: str) -> float:
    try:
        (number,) = parse_number_list(text)
    except ValueError as error:
        raise ValueError(f"malformed {what}: {error}") from None
    return number


def _search_bound(match: re.Match[str]) -> tuple[Measurement, ...]:
    """``NDR: v pps, g Gbps`` or legacy ``NDR_LOWER``/``NDR_UPPER``: the rate and bandwidth.

    The current wording's bare ``NDR`` is the quantity the legacy ``NDR_LOWER``
    was, so both become ``ndr``; an upper bound's bandwidth has no metric.
    """
    edge = (match["edge"] or "").upper()
    label = f"{match['bound'].upper()}{'_' + edge if edge else ''}"
    metric = match["bound"].lower() + ("_upper" if edge == "UPPER" else "")
    try:
        rate = Measurement(metric, match["rate_unit"].lower(), parse_number_list(match["value"]))
        if match["gbps"] is None or edge == "UPPER":
            return (rate,)
        (gbps,) = parse_number_list(match["gbps"])
    except ValueError as error:
        raise ValueError(f"malformed {label} value: {error}") from None
    return rate, Measurement(f"{metric}_bandwidth", "bps", (gbps * 1e9,))


_NOTHING = MessageResults((), ())


def read_message(message: str) -> MessageResults:
    """Every measurement the CSIT conventions put in a test message."""
    reader = _MessageReader()
    try:
        hoststack = json_measurements(message)
    except ValueError as error:
        return MessageResults((), (str(error),))
    if hoststack is not None:
        return MessageResults(hoststack, ())
    for match in _RESULT.finditer(message):
        reader.read(match)
    if not reader.measurements and not reader.errors:
        return _NOTHING
    return MessageResults(
        tuple(reader.measurements), tuple(reader.errors), tuple(reader.attributes)
    )
