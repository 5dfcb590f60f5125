"""NDR/PDR rows of the reference's Parquet datasets, every latency with its histogram."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sphinxcontrib_trending.ingest.metrics import LATENCY_DIRECTIONS, LATENCY_LOADS
from tests.latency_data import hdrh_of

JOB = "csit-vpp-perf-ndrpdr-weekly-master-2n-icx"
SUITE = "tests.vpp.perf.l2.2n1l-25ge2p1xxv710-avf-eth-l2bdbasemaclrn-ndrpdr"
TEST = f"{SUITE}.64b-1c-avf-eth-l2bdbasemaclrn-ndrpdr"


def latency_samples(load: str, direction: str, base: int) -> tuple[int, ...]:
    """Ten samples: ``base`` us, higher with the load, twice as high in reverse, a tail of
    three over it (so p50, p90 and p99 differ)."""
    floor = base * (1 + int(load) // 10) * (2 if direction == "reverse" else 1)
    return (floor,) * 7 + (floor + 5, floor + 10, floor + 40)


def ndrpdr_row(
    build: str,
    start: datetime,
    ndr: float,
    pdr: float,
    latency: int = 10,
    test_id: str = TEST,
    job: str = JOB,
    dut_version: str = "26.02-rc0",
    **extra: Any,
) -> dict[str, Any]:
    """A passed NDR/PDR test: rates in pps, bandwidths for 64B frames, latency at every load."""
    row: dict[str, Any] = {
        "job": job,
        "build": build,
        "duration": 300.0,
        "dut_type": "VPP",
        "dut_version": dut_version,
        "hosts": ["10.30.51.49", "10.30.51.50"],
        "tg_type": "TREX",
        "tg_version": "3.03",
        "start_time": start,
        "passed": True,
        "test_id": test_id,
        "test_name_long": "2n1l-25ge2p1xxv710-" + test_id.rpartition(".")[2],
        "test_name_short": test_id.rpartition(".")[2],
        "version": "1.5.1",
        "result_type": "ndrpdr",
        "result_ndr_lower_rate_value": ndr,
        "result_ndr_lower_rate_unit": "pps",
        "result_ndr_lower_bandwidth_value": ndr * 64 * 8,
        "result_ndr_lower_bandwidth_unit": "bps",
        "result_pdr_lower_rate_value": pdr,
        "result_pdr_lower_rate_unit": "pps",
        "result_pdr_lower_bandwidth_value": pdr * 64 * 8,
        "result_pdr_lower_bandwidth_unit": "bps",
        **extra,
    }
    for load in LATENCY_LOADS:
        for direction in LATENCY_DIRECTIONS:
            samples = latency_samples(load, direction, latency)
            column = f"result_latency_{direction}_pdr_{load}"
            row[f"{column}_min"] = min(samples)
            row[f"{column}_avg"] = sum(samples) // len(samples)
            row[f"{column}_max"] = max(samples)
            row[f"{column}_unit"] = "us"
            row[f"{column}_hdrh"] = hdrh_of(*samples)
    return row
