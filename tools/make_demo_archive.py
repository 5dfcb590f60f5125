"""Regenerate the live demo's archive: ``docs/demo/archive/csit-demo.tar.xz``.

Real Robot Framework runs (through :mod:`tools.make_robot_archive`) for two
testbeds over three months, with regressions, progressions and failures
injected at known builds and runs lasting the hours a real CI's do, packed as
one ``.tar.xz`` the way a CI archive server hands out a bundle.  The expected
changes are listed in the demo pages, so a reader can check the site finds them.

Run from the repository root::

    python tools/make_demo_archive.py
"""

from __future__ import annotations

import gzip
import io
import random
import sys
import tarfile
import tempfile
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tools.make_robot_archive import (  # noqa: E402 - needs the path set above
    DEFAULT_TESTS,
    Change,
    GeneratedBuild,
    TestPlan,
    generate_archive,
)

TARGET = REPO / "docs" / "demo" / "archive" / "csit-demo.tar.xz"
END = datetime(2026, 11, 1, 2, 0, tzinfo=timezone.utc)

_IP6 = "tests.vpp.perf.ip6.2n1l-10ge2p1x710-ethip6-ip6base-mrr"
_VHOST = "tests.vpp.perf.vm_vhost.2n1l-10ge2p1x710-eth-l2xcbase-eth-2vhostvr1024-1vm-mrr"
_MEMIF = "tests.vpp.perf.container_memif.2n1l-10ge2p1x710-eth-l2xcbase-eth-2memif-1dcr-mrr"

EXTRA_TESTS = (
    TestPlan(
        _IP6, "tc01-78b-1t1c-ethip6-ip6base-mrr", ("MRR", "1T1C", "78B", "IP6BASE"), base=10.9e6
    ),
    TestPlan(
        _IP6, "tc02-78b-2t1c-ethip6-ip6base-mrr", ("MRR", "2T1C", "78B", "IP6BASE"), base=21.2e6
    ),
    TestPlan(
        _VHOST,
        "tc01-64b-1t1c-eth-l2xcbase-eth-2vhostvr1024-1vm-mrr",
        ("MRR", "1T1C", "64B", "VHOST"),
        base=3.1e6,
    ),
    TestPlan(
        _MEMIF,
        "tc02-64b-2t1c-eth-l2xcbase-eth-2memif-1dcr-mrr",
        ("MRR", "2T1C", "64B", "MEMIF"),
        base=7.4e6,
    ),
)
TESTS = (*DEFAULT_TESTS, *EXTRA_TESTS)

DAILY_BUILDS = 80
WEEKLY_BUILDS = 26


def _durations(minutes: float, seed: int) -> Callable[[int], timedelta]:
    """Build run times around ``minutes``, varying from build to build as a CI's do.

    Robot runs the demo's keywords in milliseconds; without this the job
    statistics would show every build taking no time at all.
    """
    rng = random.Random(seed)
    factors = [rng.uniform(0.9, 1.15) for _ in range(DAILY_BUILDS + WEEKLY_BUILDS)]
    return lambda index: timedelta(minutes=round(minutes * factors[index]))


def _daily(out: Path) -> list[GeneratedBuild]:
    """2n-skx, one build a day; the interesting changes are in the last week."""
    return generate_archive(
        out,
        job="csit-vpp-perf-mrr-daily-master-2n-skx",
        builds=DAILY_BUILDS,
        first_build=401,
        tests=TESTS,
        start=END - timedelta(days=DAILY_BUILDS - 1),
        interval=timedelta(days=1),
        changes=(
            Change("tc01-64b-1t1c-ethip4-ip4base-mrr", 75, 0.85),
            Change("tc02-64b-2t1c-eth-l2bdbasemaclrn-mrr", 77, 1.12),
            Change("tc02-78b-2t1c-ethip6-ip6base-mrr", 30, 0.9),
            Change("tc02-78b-2t1c-ethip6-ip6base-mrr", 50, 1 / 0.9),
        ),
        failures=(
            ("tc01-64b-1t1c-eth-l2xcbase-eth-2vhostvr1024-1vm-mrr", 74),
            ("tc01-64b-1t1c-eth-l2xcbase-eth-2vhostvr1024-1vm-mrr", 76),
            ("tc01-64b-1t1c-eth-l2xcbase-eth-2vhostvr1024-1vm-mrr", 79),
            ("tc02-64b-2t1c-eth-l2xcbase-eth-2memif-1dcr-mrr", 78),
            ("tc02-64b-2t1c-ethip4-ip4base-mrr", 20),
        ),
        testbed="2n-skx",
        seed=7,
        duration_fn=_durations(135, seed=7),
    )


def _weekly(out: Path) -> list[GeneratedBuild]:
    """3n-icx, every third day, with one older regression."""
    return generate_archive(
        out,
        job="csit-vpp-perf-mrr-weekly-master-3n-icx",
        builds=WEEKLY_BUILDS,
        first_build=61,
        tests=DEFAULT_TESTS[:4],
        start=END - timedelta(days=3 * (WEEKLY_BUILDS - 1), hours=-6),
        interval=timedelta(days=3),
        changes=(Change("tc01-64b-1t1c-eth-l2bdbasemaclrn-mrr", 15, 0.8),),
        failures=(("tc02-64b-2t1c-ethip4-ip4base-mrr", 25),),
        testbed="3n-icx",
        tg_address="10.30.51.73",
        seed=11,
        duration_fn=_durations(80, seed=11),
    )


def _pack(builds: list[GeneratedBuild], target: Path) -> None:
    """Plain XML members (``.xml.gz`` inside ``.tar.xz`` would compress twice)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(target, "w:xz", preset=9) as tar:
        for build in sorted(builds, key=lambda b: (b.job, int(b.build))):
            data = gzip.decompress(build.path.read_bytes())
            member = tarfile.TarInfo(build.path.name.removesuffix(".gz"))
            member.size = len(data)
            member.mtime = int(build.time.timestamp())
            tar.addfile(member, io.BytesIO(data))


def main() -> int:
    with tempfile.TemporaryDirectory() as work:
        out = Path(work)
        builds = _daily(out / "daily")
        print(f"generated {len(builds)} daily builds", flush=True)
        builds += _weekly(out / "weekly")
        print(f"generated {len(builds)} builds in all", flush=True)
        _pack(builds, TARGET)
    print(f"wrote {TARGET.relative_to(REPO)} ({TARGET.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
