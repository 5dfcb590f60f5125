"""Regenerate the live demo's NDR/PDR and latency data: ``docs/demo/json/csit-ndrpdr.tar.xz``.

CSIT JSON test model documents (version 1.5.1, each checked against the
vendored schema) of a weekly-style NDR/PDR job, laid out as the reference's
archive server does (``{job}/{build}/archives/tests/.../*.info.json.gz``)
and packed as one ``.tar.xz``.  Every latency carries a real HDR histogram
of its samples.  The changes injected here are listed on the demo pages, so
a reader can check the site finds them.

Run from the repository root::

    python tools/make_demo_json.py
"""

from __future__ import annotations

import gzip
import io
import json
import random
import sys
import tarfile
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hdrh.histogram import HdrHistogram

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from sphinxcontrib_trending.ingest.formats.csit_json import schema_error  # noqa: E402

TARGET = REPO / "docs" / "demo" / "json" / "csit-ndrpdr.tar.xz"
JOB = "csit-vpp-perf-ndrpdr-weekly-master-2n-icx"
END = datetime(2026, 11, 1, 2, 0, tzinfo=timezone.utc)
BUILDS = 40
FIRST_BUILD = 201
EVERY = timedelta(days=2)
NOISE = 0.02
FRAME_BITS = (64 + 20) * 8
"""Bits a 64-byte frame takes on the wire, preamble and gap included."""


@dataclass(frozen=True)
class DemoTest:
    suite: str
    name: str
    tags: tuple[str, ...]
    ndr: float
    latency: float
    """Average one-way latency at 50 % of PDR, microseconds."""
    ndr_factor_from: tuple[int, float] | None = None
    latency_factor_from: tuple[int, float] | None = None
    failed_builds: tuple[int, ...] = ()
    clocks_factor_from: tuple[int, float] | None = None
    """From which build ``ip4-lookup`` takes this many times the clocks per vector."""


_IP4 = "tests.vpp.perf.ip4.2n1l-25ge2p1xxv710-avf-ethip4-ip4base-ndrpdr"
_L2 = "tests.vpp.perf.l2.2n1l-25ge2p1xxv710-avf-eth-l2bdbasemaclrn-ndrpdr"
TESTS = (
    DemoTest(
        _IP4,
        "64b-1c-avf-ethip4-ip4base-ndrpdr",
        ("NDRPDR", "1C", "2T1C", "64B"),
        11.5e6,
        120.0,
        ndr_factor_from=(237, 0.9),
        clocks_factor_from=(237, 1.25),
    ),
    DemoTest(
        _IP4, "64b-2c-avf-ethip4-ip4base-ndrpdr", ("NDRPDR", "2C", "4T2C", "64B"), 22.4e6, 110.0
    ),
    DemoTest(
        _L2,
        "64b-1c-avf-eth-l2bdbasemaclrn-ndrpdr",
        ("NDRPDR", "1C", "2T1C", "64B"),
        9.8e6,
        140.0,
        latency_factor_from=(237, 1.6),
    ),
    DemoTest(
        _L2,
        "64b-2c-avf-eth-l2bdbasemaclrn-ndrpdr",
        ("NDRPDR", "2C", "4T2C", "64B"),
        19.1e6,
        130.0,
        failed_builds=(239,),
    ),
)


NODES = {
    "ip4": (
        ("avf-input", 52.0),
        ("ethernet-input", 18.0),
        ("ip4-input-no-checksum", 21.0),
        ("ip4-lookup", 34.0),
        ("ip4-rewrite", 27.0),
    ),
    "l2": (
        ("avf-input", 52.0),
        ("ethernet-input", 18.0),
        ("l2-input", 16.0),
        ("l2-learn", 29.0),
        ("l2-fwd", 23.0),
    ),
}
"""Each suite's VPP graph nodes on the worker thread, with their clocks per vector."""
WORKER = "state='active',thread_id='1',thread_lcore='2',thread_name='vpp_wk_0'"
TRIAL_SECONDS = 10
VECTOR_SIZE = 240


def telemetry(test: DemoTest, build: int, start: datetime, rng: random.Random) -> list[str]:
    """VPP's runtime counters of the test's last trial, one OpenMetrics line a sample,
    as CSIT keeps them: label values single-quoted, the timestamp in milliseconds."""
    stamp = int(start.timestamp() * 1000)
    rate = test.ndr * _factor(test.ndr_factor_from, build)
    lines = []
    for node, clocks in NODES[test.suite.split(".")[3]]:
        if node == "ip4-lookup":
            clocks *= _factor(test.clocks_factor_from, build)
        vectors = round(rate * TRIAL_SECONDS * rng.gauss(1, 0.002))
        labels = (
            f"name='{node}',state='active',thread_id='1',thread_lcore='2',thread_name='vpp_wk_0'"
        )
        counts = {
            "calls": round(vectors / VECTOR_SIZE),
            "vectors": vectors,
            "clocks": round(vectors * clocks * rng.gauss(1, 0.01)),
        }
        lines += [f"{name}{{{labels}}} {value} {stamp}" for name, value in counts.items()]
    return lines


def _factor(change: tuple[int, float] | None, build: int) -> float:
    return change[1] if change is not None and build >= change[0] else 1.0


def _histogram(rng: random.Random, average: float) -> tuple[dict[str, Any], float]:
    """min/avg/max and the encoded histogram of 400 samples around ``average``."""
    samples = [max(1, round(rng.gauss(average, average / 6))) for _ in range(400)]
    histogram = HdrHistogram(1, 3_600_000_000, 3)
    for sample in samples:
        histogram.record_value(sample)
    mean = sum(samples) / len(samples)
    numbers = {
        "min": min(samples),
        "avg": round(mean),
        "max": max(samples),
        "hdrh": histogram.encode().decode("ascii").rstrip("="),
        "unit": "us",
    }
    return numbers, mean


def _bound(rate: float) -> dict[str, Any]:
    return {
        "rate": {"value": rate, "unit": "pps"},
        "bandwidth": {"value": rate * FRAME_BITS, "unit": "bps"},
    }


def _result(test: DemoTest, build: int, rng: random.Random) -> dict[str, Any]:
    ndr = test.ndr * _factor(test.ndr_factor_from, build) * rng.gauss(1, NOISE)
    pdr = ndr * 1.04 * rng.gauss(1, NOISE / 4)
    latency_scale = _factor(test.latency_factor_from, build)
    latencies: dict[str, Any] = {}
    for direction, offset in (("forward", 0.0), ("reverse", 10.0)):
        latencies[f"latency_{direction}"] = {
            f"pdr_{load}": _histogram(
                rng, (test.latency + offset) * latency_scale * (1 + int(load) / 100)
            )[0]
            for load in ("0", "10", "50", "90")
        }
    return {
        "type": "ndrpdr",
        "ndr": {"lower": _bound(ndr), "upper": _bound(ndr * 1.005)},
        "pdr": {"lower": _bound(pdr), "upper": _bound(pdr * 1.005)},
        **latencies,
    }


def document(
    test: DemoTest, build: int, start: datetime, rng: random.Random, counters: random.Random
) -> dict[str, Any]:
    """``counters`` draws the telemetry apart from ``rng``, so adding it changed no value."""
    failed = build in test.failed_builds
    stamp = start.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return {
        "duration": 600.0,
        "dut_type": "VPP",
        "dut_version": f"26.10-rc0~{300 + build}-g1a2b3c4",
        "end_time": (start + timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "hosts": ["10.30.51.61", "10.30.51.62"],
        "telemetry": [] if failed else telemetry(test, build, start, counters),
        "message": "Traffic generator failed: link down on port 1" if failed else "",
        "passed": not failed,
        "result": {"type": "unknown"} if failed else _result(test, build, rng),
        "start_time": stamp,
        "tags": list(test.tags),
        "test_documentation": "",
        "test_id": f"{test.suite}.{test.name}",
        "test_name_long": f"25ge2p1xxv710-{test.name}",
        "test_name_short": test.name,
        "test_type": "ndrpdr",
        "tg_type": "TREX",
        "tg_version": "3.03",
        "version": "1.5.1",
    }


def _member(tar: tarfile.TarFile, name: str, payload: bytes, moment: datetime) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(payload)
    info.mtime = int(moment.timestamp())
    tar.addfile(info, io.BytesIO(payload))


def main() -> int:
    rng = random.Random(2026)
    counters = random.Random(2027)
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:xz") as tar:
        for index in range(BUILDS):
            build = FIRST_BUILD + index
            start = END - EVERY * (BUILDS - 1 - index)
            for position, test in enumerate(TESTS):
                moment = start + timedelta(minutes=15 * position)
                doc = document(test, build, moment, rng, counters)
                error = schema_error(doc)
                if error is not None:
                    raise SystemExit(f"{test.name} build {build}: {error.message}")
                folder = "/".join(test.suite.split(".")[:-1])
                name = f"{JOB}/{build}/archives/{folder}/{test.name}.info.json.gz"
                text = json.dumps(doc, sort_keys=True).encode()
                _member(tar, name, gzip.compress(text, mtime=0), start)
    TARGET.write_bytes(buffer.getvalue())
    print(f"wrote {TARGET.relative_to(REPO)} ({len(buffer.getvalue()):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
