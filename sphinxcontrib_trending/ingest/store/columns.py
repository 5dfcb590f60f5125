"""The store's columns: the reference's flattened test model, then our own.

The reference (FD.io CSIT's ETL) writes one row per test with its result
flattened into columns named by path (``result_receive_rate_rate_values``,
``result_ndr_lower_rate_value``, ``result_latency_forward_pdr_50_avg``).
Our model is open-ended (any format, any metric), so the store writes one
row per (build, test, metric) in our own columns (``metric``, ``unit``,
``values`` ...) and, on the row of a metric the reference knows, also that
metric's reference columns.  Our columns are what we read back; the
reference columns are what makes a row readable by the reference's tools,
and what we read from the reference's own dataset.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from sphinxcontrib_trending.ingest.metrics import (
    LATENCY_DIRECTIONS,
    LATENCY_LOADS,
    LATENCY_STATISTICS,
    latency_metric,
)

STORE_MARKER = b"sphinxcontrib-trending.store"
"""Schema metadata key every file we write carries (its value is the layout version)."""

STORE_VERSION = b"1"


@dataclass(frozen=True, slots=True)
class ReferenceColumns:
    """Where the reference keeps one of our metrics.

    ``trials`` metrics (MRR) hold a list of values plus their average and
    standard deviation; the others one number.  Several metrics can share a
    unit column (min/avg/max latency at one load).
    """

    value: str
    unit: str
    trials: bool = False

    @property
    def average(self) -> str:
        return self.value.removesuffix("_values") + "_avg"

    @property
    def stdev(self) -> str:
        return self.value.removesuffix("_values") + "_stdev"


def _rate_bounds(search: str) -> dict[str, ReferenceColumns]:
    lower = f"result_{search}_lower"
    return {
        search: ReferenceColumns(f"{lower}_rate_value", f"{lower}_rate_unit"),
        f"{search}_upper": ReferenceColumns(
            f"result_{search}_upper_rate_value", f"result_{search}_upper_rate_unit"
        ),
        f"{search}_bandwidth": ReferenceColumns(
            f"{lower}_bandwidth_value", f"{lower}_bandwidth_unit"
        ),
    }


def _latencies() -> dict[str, ReferenceColumns]:
    return {
        latency_metric(load, direction, statistic): ReferenceColumns(
            f"result_latency_{direction}_pdr_{load}_{statistic}",
            f"result_latency_{direction}_pdr_{load}_unit",
        )
        for load in LATENCY_LOADS
        for direction in LATENCY_DIRECTIONS
        for statistic in LATENCY_STATISTICS
    }


REFERENCE_HISTOGRAMS: dict[str, ReferenceColumns] = {
    f"latency_pdr{load}_{direction}": ReferenceColumns(
        f"result_latency_{direction}_pdr_{load}_hdrh",
        f"result_latency_{direction}_pdr_{load}_unit",
    )
    for load in LATENCY_LOADS
    for direction in LATENCY_DIRECTIONS
}
"""A latency's base name (its percentiles are ``{base}_p50`` ...) -> its encoded HDR
histogram's column in the reference's trending Parquet, and its unit's."""


def _single(prefix: str) -> ReferenceColumns:
    return ReferenceColumns(f"{prefix}_value", f"{prefix}_unit")


REFERENCE_METRICS: dict[str, ReferenceColumns] = {
    "mrr": ReferenceColumns(
        "result_receive_rate_rate_values", "result_receive_rate_rate_unit", trials=True
    ),
    "mrr_bandwidth": ReferenceColumns(
        "result_receive_rate_bandwidth_values", "result_receive_rate_bandwidth_unit", trials=True
    ),
    **_rate_bounds("ndr"),
    **_rate_bounds("pdr"),
    **_latencies(),
    "soak_lower": _single("result_critical_rate_lower_rate"),
    "soak_upper": _single("result_critical_rate_upper_rate"),
    "reconf_loss": _single("result_loss_packets"),
    "reconf_time_lost": _single("result_loss_time"),
    "hoststack_bps": _single("result_bandwidth"),
    "hoststack_rate": _single("result_rate"),
    "hoststack_latency": _single("result_latency"),
    "hoststack_completed_requests": _single("result_completed_requests"),
    "hoststack_failed_requests": _single("result_failed_requests"),
    "hoststack_retransmits": _single("result_retransmits"),
    "hoststack_duration": _single("result_duration"),
}
"""Our metric name -> its columns in the reference's trending Parquet."""

TIME = pa.timestamp("us", tz="UTC")
TEXTS = pa.list_(pa.string())

REFERENCE_FIELDS: list[pa.Field] = [
    pa.field("job", pa.string()),
    pa.field("build", pa.string()),
    pa.field("dut_type", pa.string()),
    pa.field("dut_version", pa.string()),
    pa.field("hosts", TEXTS),
    pa.field("tg_type", pa.string()),
    pa.field("tg_version", pa.string()),
    pa.field("start_time", TIME),
    pa.field("passed", pa.bool_()),
    pa.field("test_id", pa.string()),
    pa.field("version", pa.string()),
    pa.field("message", pa.string()),
]
"""The reference's per-test columns we can fill (``test_type`` is a partition)."""


def _result_fields() -> list[pa.Field]:
    fields: dict[str, pa.DataType] = {}
    for columns in REFERENCE_METRICS.values():
        if columns.trials:
            fields[columns.value] = pa.list_(pa.float64())
            fields[columns.average] = pa.float64()
            fields[columns.stdev] = pa.float64()
        else:
            fields[columns.value] = pa.float64()
        fields[columns.unit] = pa.string()
    return [pa.field(name, kind) for name, kind in fields.items()]


OWN_FIELDS: list[pa.Field] = [
    pa.field("testbed", pa.string()),
    pa.field("build_time", TIME, nullable=False),
    pa.field("origin", pa.string(), nullable=False),
    pa.field("build_index", pa.int32(), nullable=False),
    pa.field("test_index", pa.int32()),
    pa.field("suite", pa.string()),
    pa.field("test_name", pa.string()),
    pa.field("tags", TEXTS),
    pa.field("status", pa.string()),
    pa.field("thread_core", pa.string()),
    pa.field(
        "attributes",
        pa.list_(pa.struct([pa.field("name", pa.string()), pa.field("value", pa.string())])),
    ),
    pa.field("metric", pa.string()),
    pa.field("unit", pa.string()),
    pa.field("values", pa.list_(pa.float64())),
]
"""Everything of our model the reference has no column for.

``build_index`` and ``test_index`` give each row its place (which build of
its input, which test of its build), so builds come back as they were
parsed; a build without tests is one row with ``test_index`` null, a test
without values (a failed one) one row with ``metric`` null.
"""

OWN_COLUMNS = tuple(field.name for field in OWN_FIELDS)

STORE_SCHEMA = pa.schema(
    [*REFERENCE_FIELDS, *_result_fields(), *OWN_FIELDS],
    metadata={STORE_MARKER: STORE_VERSION},
)

TRIAL_STATISTICS = tuple(
    (columns.average, columns.stdev) for columns in REFERENCE_METRICS.values() if columns.trials
)
"""Where a row of a trials metric keeps the average and population standard
deviation of its values, computed as :func:`.trial_statistics` computes them."""

MODEL_COLUMNS = (
    "job",
    "build",
    "dut_version",
    "start_time",
    "test_id",
    "message",
    *OWN_COLUMNS,
    *(name for pair in TRIAL_STATISTICS for name in pair),
)
"""What reading our rows back into the model needs (projection for reads)."""
