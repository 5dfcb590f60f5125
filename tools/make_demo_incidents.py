"""Regenerate the incidents demo's data: ``docs/demo/incidents/perf.jsonl.gz``.

Forty daily builds of two CSIT-named jobs, each on its own testbed, both
testing the same DUT version every day, with changes that many tests share:

- DUT version ``26.02-rc0~30``: every ip4base test of both testbeds loses
  8 to 14 % (one incident of six tests, on two testbeds and two NICs);
- build 36 of 2n-icx: both l2bd tests gain 10 % (one incident of two tests
  that share testbed, NIC, driver and frame size);
- build 38 of 3n-spr: both of its l2xc tests fail from then on (one incident
  of two failures).

Every trial carries 1 % of seeded random noise; the file is gzipped without
a timestamp, so the same script writes the same bytes.  Run from the
repository root::

    python tools/make_demo_incidents.py
"""

from __future__ import annotations

import gzip
import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parent.parent
TARGET = REPO / "docs" / "demo" / "incidents" / "perf.jsonl.gz"
END = datetime(2026, 11, 1, 4, 0, tzinfo=timezone.utc)
BUILDS = 40
TRIALS = 5
NOISE = 0.01


class Plan(NamedTuple):
    """One test of one testbed: its suite, case, level and what happens to it."""

    testbed: str
    suite: str
    case: str
    base: float
    change_at: int | None = None
    factor: float = 1.0
    fails_from: int | None = None


_IP4_ICX = "tests.vpp.perf.ip4.2n1l-10ge2p1x710-avf-ethip4-ip4base-mrr"
_IP4_SPR = "tests.vpp.perf.ip4.3n1l-100ge2p1e810cq-avf-ethip4-ip4base-mrr"
_L2BD_ICX = "tests.vpp.perf.l2.2n1l-10ge2p1x710-avf-eth-l2bdbasemaclrn-mrr"
_L2XC_SPR = "tests.vpp.perf.l2.3n1l-100ge2p1e810cq-avf-eth-l2xcbase-mrr"

PLANS = (
    Plan("2n-icx", _IP4_ICX, "64b-1t1c-avf-ethip4-ip4base-mrr", 12.1e6, 30, 0.88),
    Plan("2n-icx", _IP4_ICX, "64b-2t1c-avf-ethip4-ip4base-mrr", 23.8e6, 30, 0.90),
    Plan("2n-icx", _IP4_ICX, "1518b-2t1c-avf-ethip4-ip4base-mrr", 3.2e6, 30, 0.92),
    Plan("3n-spr", _IP4_SPR, "64b-1t1c-avf-ethip4-ip4base-mrr", 18.4e6, 30, 0.86),
    Plan("3n-spr", _IP4_SPR, "64b-2t1c-avf-ethip4-ip4base-mrr", 35.7e6, 30, 0.89),
    Plan("3n-spr", _IP4_SPR, "imix-2t1c-avf-ethip4-ip4base-mrr", 11.0e6, 30, 0.91),
    Plan("2n-icx", _L2BD_ICX, "64b-1t1c-avf-eth-l2bdbasemaclrn-mrr", 10.2e6, 36, 1.10),
    Plan("2n-icx", _L2BD_ICX, "64b-2t1c-avf-eth-l2bdbasemaclrn-mrr", 19.9e6, 36, 1.10),
    Plan("2n-icx", _L2BD_ICX, "1518b-2t1c-avf-eth-l2bdbasemaclrn-mrr", 3.1e6),
    Plan("3n-spr", _L2XC_SPR, "64b-1t1c-avf-eth-l2xcbase-mrr", 20.5e6, fails_from=38),
    Plan("3n-spr", _L2XC_SPR, "64b-2t1c-avf-eth-l2xcbase-mrr", 39.0e6, fails_from=38),
)

_HOURS = {"2n-icx": 0, "3n-spr": 2}
"""The 3n-spr job starts two hours after the 2n-icx one, on the same day's DUT build."""


def _row(plan: Plan, build: int, rng: random.Random) -> dict[str, Any]:
    level = plan.base * (plan.factor if plan.change_at and build >= plan.change_at else 1.0)
    failed = plan.fails_from is not None and build >= plan.fails_from
    frame, cores = plan.case.split("-")[:2]
    return {
        "job": f"csit-vpp-perf-mrr-daily-master-{plan.testbed}",
        "build": str(build),
        "time": (END - timedelta(days=BUILDS - build, hours=-_HOURS[plan.testbed])).isoformat(),
        "test": f"{plan.suite}.{plan.case}",
        "name": plan.case,
        "tags": ["MRR", cores.upper(), frame.upper(), "DRV_AVF"],
        "status": "FAIL" if failed else "PASS",
        "message": "No traffic received: link down on the TG port" if failed else "",
        "metric": "mrr",
        "unit": "pps",
        "values": [] if failed else [round(rng.gauss(level, NOISE * level)) for _ in range(TRIALS)],
        "version": f"26.02-rc0~{build}-g{build * 7919:07x}",
        "testbed": plan.testbed,
    }


def rows() -> list[dict[str, Any]]:
    rng = random.Random(29)
    return [_row(plan, build, rng) for build in range(1, BUILDS + 1) for plan in PLANS]


def main() -> None:
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(row, sort_keys=True) + "\n" for row in rows())
    TARGET.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    print(f"wrote {TARGET.relative_to(REPO)}: {len(PLANS)} tests x {BUILDS} builds")


if __name__ == "__main__":
    main()
