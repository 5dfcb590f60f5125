"""CSIT JSON model ingest: our reader against ``json.load`` + ``jsonschema`` in a naive loop.

Writes (once) ``--documents`` test model documents (version 1.5.1, every
one valid under the vendored schema) into a reference-style tree,
``{job}/{build}/archives/tests/.../*.info.json``: MRR, NDR/PDR with latency
and real HDR histograms, soak, reconf and host-stack results, each with
some telemetry.  Then, in the same run and process:

* ``ours``  - ``sphinxcontrib_trending.ingest.load`` of the folder (no cache):
  the whole path, schema validation, metrics, percentiles included;
* ``naive`` - for each file, ``json.load`` and ``jsonschema.validate`` against
  the same schema (what a reader written in an afternoon does).

Both must read the same thing: every test's id, status and main result
numbers are compared before any time is printed.  Prints seconds, documents
per second and the ratio naive / ours (the project targets >= 5).
Usage: ``python benchmarks/bench_csit_json.py [--documents 3000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from hdrh.histogram import HdrHistogram

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / "_work" / "csit_json"
JOB = "csit-vpp-perf-ndrpdr-weekly-master-2n-icx"
KINDS = ("mrr", "ndrpdr", "ndrpdr", "soak", "reconf", "hoststack")
"""Result types in turn; NDR/PDR twice, as in CSIT's archives it dominates."""

Summary = dict[str, tuple[str, tuple[float, ...]]]
"""test_id -> (status, the main result numbers): what both readers must agree on."""


def _histogram(rng: random.Random, centre: int) -> str:
    histogram = HdrHistogram(1, 3_600_000_000, 3)
    for _ in range(200):
        histogram.record_value(max(1, int(rng.gauss(centre, centre / 5))))
    return histogram.encode().decode("ascii").rstrip("=")


def _rate(value: float, unit: str = "pps") -> dict[str, Any]:
    return {
        "rate": {"value": value, "unit": unit},
        "bandwidth": {"value": value * 512, "unit": "bps"},
    }


def _result(kind: str, rng: random.Random, histograms: list[str]) -> dict[str, Any]:
    scale = rng.uniform(1e6, 2e7)
    if kind == "mrr":
        values = [scale * rng.uniform(0.98, 1.02) for _ in range(10)]
        mean = sum(values) / len(values)
        return {
            "type": "mrr",
            "receive_rate": {"rate": {"values": values, "avg": mean, "stdev": 0.0, "unit": "pps"}},
        }
    if kind == "ndrpdr":

        def latency(base: int) -> dict[str, Any]:
            return {
                f"pdr_{load}": {
                    "min": base,
                    "avg": base + load // 10 + 5,
                    "max": base + 100,
                    "hdrh": rng.choice(histograms),
                    "unit": "us",
                }
                for load in (0, 10, 50, 90)
            }

        return {
            "type": "ndrpdr",
            "ndr": {"lower": _rate(scale), "upper": _rate(scale * 1.01)},
            "pdr": {"lower": _rate(scale * 1.1), "upper": _rate(scale * 1.11)},
            "latency_forward": latency(10),
            "latency_reverse": latency(12),
        }
    if kind == "soak":
        return {
            "type": "soak",
            "critical_rate": {"lower": _rate(scale), "upper": _rate(scale * 1.02)},
        }
    if kind == "reconf":
        return {
            "type": "reconf",
            "aggregate_rate": _rate(scale),
            "loss": {
                "packet": {"value": rng.randrange(100, 5000), "unit": "packets"},
                "time": {"value": rng.uniform(1e-4, 1e-2), "unit": "s"},
            },
        }
    return {
        "type": "hoststack",
        "bandwidth": {"value": scale * 1000, "unit": "bps"},
        "rate": {"value": scale / 100, "unit": "cps"},
        "completed_requests": {"value": 100000, "unit": "requests"},
    }


def _document(index: int, rng: random.Random, histograms: list[str]) -> dict[str, Any]:
    kind = KINDS[index % len(KINDS)]
    name = f"64b-{1 + index % 4}c-ethip4-ip4base-{index}-{kind}"
    return {
        "duration": 12.5,
        "dut_type": "VPP",
        "dut_version": "24.06-rc0~123",
        "end_time": "2024-05-01T02:10:00.000Z",
        "hosts": ["10.30.51.21", "10.30.51.22"],
        "telemetry": [f'vpp_calls{{name="node-{n}",thread="1"}} {n * 1000} 0' for n in range(20)],
        "message": "",
        "passed": True,
        "result": _result(kind, rng, histograms),
        "start_time": "2024-05-01T02:00:00.000Z",
        "tags": ["2T1C", "64B", kind.upper()],
        "test_documentation": "",
        "test_id": f"tests.vpp.perf.ip4.2n1l-25ge2p1xxv710-ethip4-ip4base.{name}",
        "test_name_long": f"25ge2p1xxv710-{name}",
        "test_name_short": name,
        "test_type": kind,
        "tg_type": "TREX",
        "tg_version": "3.03",
        "version": "1.5.1",
    }


def generate(documents: int) -> Path:
    """The document tree, written once per size; one build per 500 documents."""
    root = WORK / f"{documents}"
    if (root / "complete").exists():
        return root
    rng = random.Random(11)
    histograms = [_histogram(rng, centre) for centre in (8, 15, 30, 60, 120)]
    for index in range(documents):
        folder = root / JOB / str(100 + index // 500) / "archives" / "tests" / "vpp" / "perf"
        folder.mkdir(parents=True, exist_ok=True)
        document = _document(index, rng, histograms)
        (folder / f"{document['test_name_short']}.info.json").write_text(json.dumps(document))
    (root / "complete").write_text("")
    return root


def _main_numbers(result: dict[str, Any]) -> tuple[float, ...]:
    kind = result["type"]
    if kind == "mrr":
        return tuple(result["receive_rate"]["rate"]["values"])
    if kind == "ndrpdr":
        return (result["ndr"]["lower"]["rate"]["value"], result["pdr"]["lower"]["rate"]["value"])
    if kind == "soak":
        return (result["critical_rate"]["lower"]["rate"]["value"],)
    if kind == "reconf":
        return (float(result["loss"]["time"]["value"]),)
    return (result["bandwidth"]["value"],)


_MAIN_METRICS = {
    "mrr": ("mrr",),
    "ndrpdr": ("ndr", "pdr"),
    "soak": ("soak_lower",),
    "reconf": ("reconf_time_lost",),
    "hoststack": ("hoststack_bps",),
}


def naive(root: Path) -> Summary:
    text = resources.files("sphinxcontrib_trending.schemas").joinpath("test_case.schema.yaml")
    schema = yaml.safe_load(text.read_text(encoding="utf-8"))
    found: Summary = {}
    for path in sorted(root.rglob("*.info.json")):
        with path.open(encoding="utf-8") as stream:
            document = json.load(stream)
        jsonschema.validate(document, schema)
        status = "PASS" if document["passed"] else "FAIL"
        found[document["test_id"]] = (status, _main_numbers(document["result"]))
    return found


def ours(root: Path) -> Summary:
    from sphinxcontrib_trending.ingest import SourceSpec, load

    dataset = load(SourceSpec(paths=(str(root),), format="csit-json"))
    if dataset.problems:
        raise SystemExit(f"our reader reported problems: {dataset.problems[:3]}")
    found: Summary = {}
    for build in dataset.builds:
        for test in build.tests:
            kind = next(tag.lower() for tag in test.tags if tag.lower() in _MAIN_METRICS)
            numbers: tuple[float, ...] = ()
            for metric in _MAIN_METRICS[kind]:
                measurement = test.measurement(metric)
                numbers += measurement.values if measurement else ()
            found[test.test_id] = (test.status, numbers)
    return found


def _best(read: Callable[[Path], Summary], root: Path, repeat: int) -> tuple[float, Summary]:
    best = float("inf")
    summary: Summary = {}
    for _ in range(repeat):
        started = time.perf_counter()
        summary = read(root)
        best = min(best, time.perf_counter() - started)
    return best, summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    root = generate(args.documents)
    ours_seconds, ours_read = _best(ours, root, args.repeat)
    naive_seconds, naive_read = _best(naive, root, args.repeat)
    if ours_read != naive_read:
        raise SystemExit("the readers disagree: not a fair comparison")
    assert len(ours_read) == args.documents
    for name, seconds in (("ours", ours_seconds), ("naive", naive_seconds)):
        print(f"{name:6} {seconds:8.3f} s  {args.documents / seconds:9.0f} documents/s")
    ratio = naive_seconds / ours_seconds
    print(f"naive / ours: {ratio:.1f}x (target >= 5x), same {len(ours_read)} tests read")
    return 0 if ratio >= 5 else 1


if __name__ == "__main__":
    sys.exit(main())
