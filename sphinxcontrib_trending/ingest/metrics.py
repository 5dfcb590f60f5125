"""Every metric name ingest produces, with its unit and its better direction.

One table so that a format and the documentation agree on what
``ndr_bandwidth`` measures and whether a rise in ``reconf_time_lost`` is good
news.  Rates keep the unit the data states (``pps``, ``cps``, ``rps``); the
table gives the unit used when the data states none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Direction = Literal["higher", "lower"]


@dataclass(frozen=True, slots=True)
class MetricInfo:
    unit: str
    direction: Direction
    meaning: str


LATENCY_LOADS = ("0", "10", "50", "90")
LATENCY_DIRECTIONS = ("forward", "reverse")
LATENCY_STATISTICS = ("min", "avg", "max")


def latency_metric(load: str, direction: str, statistic: str) -> str:
    """``latency_pdr50_forward_avg``: latency at ``load`` % of PDR."""
    return f"latency_pdr{load}_{direction}_{statistic}"


def _latency_metrics() -> dict[str, MetricInfo]:
    return {
        latency_metric(load, direction, statistic): MetricInfo(
            "us", "lower", f"{statistic} one-way latency, {direction}, at {load} % of PDR"
        )
        for load in LATENCY_LOADS
        for direction in LATENCY_DIRECTIONS
        for statistic in LATENCY_STATISTICS
    }


METRICS: dict[str, MetricInfo] = {
    "mrr": MetricInfo("pps", "higher", "maximum receive rate, one value per trial"),
    "mrr_bandwidth": MetricInfo("bps", "higher", "MRR as bandwidth, one value per trial"),
    "ndr": MetricInfo("pps", "higher", "NDR lower bound (no loss)"),
    "ndr_upper": MetricInfo("pps", "higher", "NDR upper bound"),
    "ndr_bandwidth": MetricInfo("bps", "higher", "NDR lower bound as bandwidth"),
    "pdr": MetricInfo("pps", "higher", "PDR lower bound (0.5 % loss)"),
    "pdr_upper": MetricInfo("pps", "higher", "PDR upper bound"),
    "pdr_bandwidth": MetricInfo("bps", "higher", "PDR lower bound as bandwidth"),
    **_latency_metrics(),
    "soak_lower": MetricInfo("pps", "higher", "soak critical rate, lower bound"),
    "soak_upper": MetricInfo("pps", "higher", "soak critical rate, upper bound"),
    "reconf_loss": MetricInfo("packets", "lower", "packets lost while reconfiguring"),
    "reconf_time_lost": MetricInfo("s", "lower", "reconfiguration loss as time at the load"),
    "hoststack_bps": MetricInfo("bps", "higher", "host-stack goodput"),
    "hoststack_rate": MetricInfo("cps", "higher", "host-stack request or connection rate"),
    "hoststack_latency": MetricInfo("s", "lower", "host-stack latency, in the unit reported"),
    "hoststack_completed_requests": MetricInfo("requests", "higher", "completed requests"),
    "hoststack_failed_requests": MetricInfo("requests", "lower", "failed requests"),
    "hoststack_retransmits": MetricInfo("packets", "lower", "TCP retransmits"),
    "hoststack_duration": MetricInfo("s", "lower", "host-stack program run time"),
}
"""Metric name -> unit, direction and meaning (the docs' format page lists them)."""
