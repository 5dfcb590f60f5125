"""Regenerate the live demo's release data: ``docs/demo/releases/``.

Parquet datasets laid out and typed as the reference's ETL writes its
release data: ``iterative_rls2502``, ``iterative_rls2506`` and
``iterative_rls2510`` (five runs of each test per release) and
``coverage_rls2510`` (one run each), Hive partitions
``test_type=ndrpdr/year=/month=/day=``, snappy, an INT96 ``start_time``.
The columns are the reference's ``iterative_ndrpdr`` Spark schema, made by
``tests/reference_parquet.py`` from the evaluation data's
``trending_ndrpdr.json`` (so this needs ``../shared/data/csit``).  Every
latency carries a real HDR histogram of its samples.  The changes injected
here are listed on the demo page.

Run from the repository root::

    python tools/make_demo_releases.py
"""

from __future__ import annotations

import random
import shutil
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from hdrh.histogram import HdrHistogram

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from sphinxcontrib_trending.ingest.metrics import (  # noqa: E402
    LATENCY_DIRECTIONS,
    LATENCY_LOADS,
)
from tests.ndrpdr_reference import ndrpdr_row  # noqa: E402
from tests.reference_parquet import reference_schema  # noqa: E402

TARGET = REPO / "docs" / "demo" / "releases"
RELEASES = {
    # CSIT release: (DUT version, first day, NDR factor of the l2 1-core test)
    "rls2502": ("25.02-release", datetime(2025, 2, 20, 6), 1.0),
    "rls2506": ("25.06-release", datetime(2025, 6, 20, 6), 1.04),
    "rls2510": ("25.10-release", datetime(2025, 10, 20, 6), 0.9),
}
RUNS = 5
NOISE = 0.015
_IP4 = "tests.vpp.perf.ip4.2n1l-25ge2p1xxv710-avf-ethip4-ip4base-ndrpdr"
_L2 = "tests.vpp.perf.l2.2n1l-25ge2p1xxv710-avf-eth-l2bdbasemaclrn-ndrpdr"
TESTS = {
    # test id: (NDR in pps, latency floor in us, tags)
    f"{_IP4}.64b-1c-avf-ethip4-ip4base-ndrpdr": (11.5e6, 9, ("NDRPDR", "1C", "IP4")),
    f"{_IP4}.64b-2c-avf-ethip4-ip4base-ndrpdr": (22.4e6, 8, ("NDRPDR", "2C", "IP4")),
    f"{_L2}.64b-1c-avf-eth-l2bdbasemaclrn-ndrpdr": (9.8e6, 10, ("NDRPDR", "1C", "L2")),
    f"{_L2}.64b-2c-avf-eth-l2bdbasemaclrn-ndrpdr": (19.1e6, 9, ("NDRPDR", "2C", "L2")),
}
CHANGED = f"{_L2}.64b-1c-avf-eth-l2bdbasemaclrn-ndrpdr"


def _histogram(rng: random.Random, floor: float) -> str:
    """400 samples: most near ``floor``, an exponential tail, a few late packets."""
    histogram = HdrHistogram(1, 3_600_000_000, 3)
    for _ in range(400):
        sample = floor * (1 + rng.expovariate(6))
        if rng.random() < 0.002:
            sample *= 8
        histogram.record_value(max(1, round(sample)))
    return histogram.encode().decode("ascii").rstrip("=")


def _row(rng: random.Random, test_id: str, rls: str, job: str, build: int, start: datetime) -> dict:
    ndr, latency, tags = TESTS[test_id]
    version, _first, factor = RELEASES[rls]
    ndr *= (factor if test_id == CHANGED else 1.0) * rng.gauss(1, NOISE)
    row = ndrpdr_row(
        str(build), start, ndr, ndr * 1.04, latency, test_id, job, version, tags=list(tags)
    )
    for load in LATENCY_LOADS:
        for direction in LATENCY_DIRECTIONS:
            floor = latency * (1 + int(load) / 40) * (1.2 if direction == "reverse" else 1.0)
            row[f"result_latency_{direction}_pdr_{load}_hdrh"] = _histogram(rng, floor)
    return row


def _write(folder: Path, dataset: str, rows: list[dict]) -> None:
    """The rows of one day as one file of the dataset's day partition."""
    schema = reference_schema(dataset)
    day = rows[0]["start_time"]
    path = folder / "test_type=ndrpdr" / f"year={day.year}" / f"month={day.month}"
    path = path / f"day={day.day}" / "part-00000.snappy.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, path, compression="snappy", use_deprecated_int96_timestamps=True)


def main() -> None:
    rng = random.Random(2510)
    shutil.rmtree(TARGET, ignore_errors=True)
    for rls, (_version, first, _factor) in RELEASES.items():
        job = f"csit-vpp-perf-report-iterative-{rls[3:]}-2n-icx"
        for build in range(1, RUNS + 1):
            start = first + timedelta(days=build)
            rows = [_row(rng, test, rls, job, build, start) for test in TESTS]
            _write(TARGET / f"iterative_{rls}", "iterative_ndrpdr", rows)
    job = "csit-vpp-perf-report-coverage-2510-2n-icx"
    start = RELEASES["rls2510"][1] + timedelta(days=RUNS + 2)
    rows = [_row(rng, test, "rls2510", job, 1, start) for test in TESTS]
    _write(TARGET / "coverage_rls2510", "coverage_ndrpdr", rows)
    print(f"wrote {sum(1 for _ in TARGET.rglob('*.parquet'))} files under {TARGET}")


if __name__ == "__main__":
    main()
