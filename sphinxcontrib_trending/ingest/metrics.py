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
LATENCY_BOUNDS = ("ndr", "pdr")
"""The search results a ``LATENCY [min/avg/max/hdrh] per stream`` line follows."""
LATENCY_DIRECTIONS = ("forward", "reverse")
LATENCY_STATISTICS = ("min", "avg", "max")
LATENCY_PERCENTILES = {"p50": 50.0, "p90": 90.0, "p99": 99.0, "p999": 99.9}
"""Statistic name -> percentile read from a latency's HDR histogram."""


def latency_metric(load: str, direction: str, statistic: str) -> str:
    """``latency_pdr50_forward_avg``: latency at ``load`` % of PDR."""
    return f"latency_pdr{load}_{direction}_{statistic}"


def latency_base(metric: str) -> str | None:
    """``latency_pdr50_forward`` for any statistic of it; None for other metrics."""
    base, _, statistic = metric.rpartition("_")
    if not base.startswith("latency_"):
        return None
    if statistic in LATENCY_STATISTICS or statistic in LATENCY_PERCENTILES:
        return base
    return None


def _latency_metrics() -> dict[str, MetricInfo]:
    places = [(f"pdr{load}", f"at {load} % of PDR") for load in LATENCY_LOADS]
    places += [(bound, f"at the {bound.upper()} rate") for bound in LATENCY_BOUNDS]
    statistics = [*LATENCY_STATISTICS, *LATENCY_PERCENTILES]
    return {
        f"latency_{place}_{direction}_{statistic}": MetricInfo(
            "us", "lower", f"{statistic} one-way latency, {direction}, {where}"
        )
        for place, where in places
        for direction in LATENCY_DIRECTIONS
        for statistic in statistics
    }


def _benchmark_metrics() -> dict[str, MetricInfo]:
    """asv, pytest-benchmark and Google Benchmark: times and memory lower, rates higher.

    asv's ``track`` is left out: what it tracks, and so which way is
    better, is the benchmark's own business (a source's ``direction`` says).
    """
    found = {
        "time": MetricInfo("s", "lower", "asv time_ benchmarks; pytest-benchmark rounds"),
        "mem": MetricInfo("bytes", "lower", "asv mem_ benchmarks: an object's size"),
        "peakmem": MetricInfo("bytes", "lower", "asv peakmem_ benchmarks: peak resident memory"),
        "ops": MetricInfo("ops/s", "higher", "pytest-benchmark operations per second"),
        "bytes_per_second": MetricInfo("bytes/s", "higher", "Google Benchmark bytes processed"),
        "items_per_second": MetricInfo("items/s", "higher", "Google Benchmark items processed"),
    }
    for statistic in ("min", "max", "mean", "median", "stddev", "iqr"):
        found[f"time_{statistic}"] = MetricInfo("s", "lower", f"pytest-benchmark {statistic}")
    for clock in ("real_time", "cpu_time"):
        found[clock] = MetricInfo("ns", "lower", f"Google Benchmark {clock}, per repetition")
        for aggregate in ("mean", "median", "stddev", "cv"):
            found[f"{clock}_{aggregate}"] = MetricInfo(
                "ns", "lower", f"Google Benchmark {clock}, aggregate {aggregate}"
            )
    return found


METRICS: dict[str, MetricInfo] = {
    "mrr": MetricInfo("pps", "higher", "maximum receive rate, one value per trial"),
    "mrr_bandwidth": MetricInfo("bps", "higher", "MRR as bandwidth, one value per trial"),
    "cps": MetricInfo("cps", "higher", "MRR of connection tests, one value per trial"),
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
    "elapsed": MetricInfo("s", "lower", "a passed test's elapsed time (any Robot test)"),
    **_benchmark_metrics(),
}
"""Metric name -> unit, direction and meaning (the docs' format page lists them)."""


def metric_info(metric: str) -> MetricInfo | None:
    """The table's entry for ``metric``; a telemetry series' is its name's, labels aside.

    ``telemetry:calls_total{name="ip4-input"}`` is looked up as
    ``telemetry:calls_total``: every label set of a name measures one thing.
    """
    info = METRICS.get(metric)
    if info is None and metric.startswith("telemetry:"):
        info = METRICS.get(metric.partition("{")[0])
    return info


def metric_unit(metric: str) -> str:
    """The table's unit for ``metric``, or none ("") for one it does not know."""
    info = metric_info(metric)
    return info.unit if info is not None else ""


def metric_direction(metric: str, explicit: str | None = None) -> Direction:
    """Which way ``metric`` improves: ``explicit`` if the user said so, else the table.

    A metric the table does not know (a user's own ``value_pattern`` group,
    a telemetry counter) is taken as higher-is-better unless told otherwise.
    """
    if explicit is not None:
        return "lower" if explicit == "lower" else "higher"
    info = metric_info(metric)
    return info.direction if info is not None else "higher"
