"""Change points on real performance histories: this project's settings against Apache Otava.

Usage::

    python benchmarks/eval_real.py [--data ../shared/data] [--max-series 300]
                                   [--setting sbps=4,min_confidence=0.95 ...]

Needs the ``bench`` extra (``pip install -e .[bench]``) for apache-otava.

The data sets are those of ``perf/README.md``: pandas asv results (one
dedicated machine), django asv results (shared CI runners), MongoDB's real
series and profiling series, and Otava's TigerBeetle series.  None has
ground truth, so each detector is described, not scored, per data set:

* ``cps``: change points found (the first run of each new group);
* ``1-run``: the share of them that open or close a group of one run, a
  single-run excursion reported as a regression plus a progression;
* ``otava``: the share within 5 runs of one of Otava's change points
  (Otava's own row is 100 % by definition and shows ``-``);
* ``asv recall``: of asv's own regression flags (its step detector, a
  reference, not the truth; pandas and django only), the share with a change
  point within 5 runs.

Each series is put in split ``A`` or ``B`` by a fixed hash of its name
(SHA-256, even or odd first byte), and every figure is printed per split:
settings are to be chosen on ``A`` and judged on ``B``.  ``--max-series``
keeps the first series of each data set in hash order, so the sample is
reproducible and spread over both splits.

Detectors: ``default`` is ``classify(series)``, every change it finds;
``recommended`` is ``classify(series, sbps=4)`` judged by
``AnomalyPolicy(min_confidence=0.95, discount_serial_correlation=True)``, its
firm anomalies only (see docs/methodology/accuracy.rst); ``otava`` is
``compute_change_points(series)`` with Otava's defaults.  Each ``--setting``
adds a detector: comma-separated ``key=value`` pairs, each key a parameter of
:func:`~sphinxcontrib_trending.analysis.classify` or a field of
:class:`~sphinxcontrib_trending.analysis.AnomalyPolicy` (a new one of either
is accepted without editing this script).  Values are read as true/false, an
integer, a float, or else a string.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import hashlib
import inspect
import itertools
import json
import lzma
import math
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sphinxcontrib_trending.analysis import AnomalyPolicy, classify, judge
from sphinxcontrib_trending.cli.check_baseline import option_value

Detector = Callable[[Sequence[float]], list[int]]

ROOT = Path(__file__).resolve().parents[1]
NEAR = 5
"""Runs within which two change points (or a flag and a change point) agree."""

RECOMMENDED = "sbps=4,min_confidence=0.95,discount_serial_correlation=true"


@dataclass
class Series:
    name: str
    values: list[float]
    flags: list[int] = field(default_factory=list)
    """Positions where asv flagged a regression (the first run after the step)."""

    @property
    def split(self) -> str:
        return "A" if hashlib.sha256(self.name.encode()).digest()[0] % 2 == 0 else "B"


# --- detectors -----------------------------------------------------------------


def parse_setting(text: str) -> tuple[dict[str, object], dict[str, object]]:
    """``key=value,...`` split into (classify's keyword arguments, AnomalyPolicy's)."""
    classify_keys = set(inspect.signature(classify).parameters) - {"runs"}
    policy_keys = {item.name for item in dataclasses.fields(AnomalyPolicy)}
    arguments: dict[str, object] = {}
    policy: dict[str, object] = {}
    for pair in filter(None, (part.strip() for part in text.split(","))):
        key, separator, value = pair.partition("=")
        key = key.strip()
        if not separator:
            raise SystemExit(f"--setting {text!r}: expected key=value, got {pair!r}")
        if key in classify_keys:
            arguments[key] = option_value(value)
        elif key in policy_keys:
            policy[key] = option_value(value)
        else:
            known = ", ".join(sorted(classify_keys | policy_keys))
            raise SystemExit(f"--setting {text!r}: unknown key {key!r} (known: {known})")
    return arguments, policy


def project(text: str) -> Detector:
    """This project's detector for one setting: the first run of every firm anomaly."""
    arguments, policy_fields = parse_setting(text)
    policy = AnomalyPolicy(**policy_fields)  # type: ignore[arg-type]

    def detect(values: Sequence[float]) -> list[int]:
        result = classify(list(values), **arguments)  # type: ignore[arg-type]
        return [verdict.start for verdict in judge(result, policy) if verdict.firm]

    return detect


def otava(values: Sequence[float]) -> list[int]:
    from otava.analysis import compute_change_points

    points, _ = compute_change_points(list(values))
    return sorted(int(point.index) for point in points)


# --- data ----------------------------------------------------------------------


def revision_order(path: Path) -> dict[int, int]:
    with open(path, newline="") as handle:
        rows = sorted(csv.DictReader(handle), key=lambda row: int(row["date_ms"]))
    return {int(row["revision"]): position for position, row in enumerate(rows)}


def asv_series(folder: Path, key_columns: Sequence[str], flag_key: Callable) -> list[Series]:
    """Each series in commit order, with asv's flags placed on it.

    A flag names a benchmark (and for pandas a parameter index) and the
    revision after the step; it lands on the first point at or after it.
    """
    order = revision_order(folder / "revisions.csv")
    points: dict[tuple[str, ...], list[tuple[int, float]]] = defaultdict(list)
    with lzma.open(folder / "series.csv.xz", "rt", newline="") as handle:
        for row in csv.DictReader(handle):
            value = float(row["value"])
            if math.isfinite(value):
                key = tuple(row[column] for column in key_columns)
                points[key].append((order.get(int(row["revision"]), -1), value))
    flagged: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for name, _graph, params, index, _new, _old, steps in json.loads(
        (folder / "asv_regressions.json").read_text()
    )["regressions"]:
        for _before, after, _old_value, _new_value in steps:
            if after is not None:
                flagged[flag_key(name.split("(", 1)[0], params, index)].append(order.get(after, -1))
    result = []
    for key in sorted(points):
        ordered = sorted(points[key])
        revisions = [revision for revision, _ in ordered]
        flags = set()
        for candidate in (key[:-1], key):  # flags by benchmark, or by parameter too
            for revision in flagged.get(candidate, ()):
                position = next((i for i, r in enumerate(revisions) if r >= revision), None)
                if position is not None and position > 0:
                    flags.add(position)
        result.append(Series("/".join(key), [value for _, value in ordered], sorted(flags)))
    return result


def pandas(data: Path) -> list[Series]:
    def key(benchmark: str, _params: dict, index: int | None) -> tuple[str, ...]:
        return (benchmark,) if index is None else (benchmark, str(index))

    return asv_series(data / "perf" / "pandas_asv", ("benchmark", "param_index"), key)


def django(data: Path) -> list[Series]:
    def key(benchmark: str, params: dict, index: int | None) -> tuple[str, ...]:
        common = (params["machine"], params["python"], benchmark)
        return common if index is None else (*common, str(index))

    columns = ("machine", "python", "benchmark", "param_index")
    return asv_series(data / "perf" / "django_asv", columns, key)


def mongodb(data: Path) -> list[Series]:
    folder = data / "perf" / "mongodb_spa_testdata"
    found = [
        Series(name, json.loads((folder / f"{name}.json").read_text()))
        for name in ("real_series", "robust_series", "long_series")
    ]
    for path in sorted((folder / "profiling").glob("*.json")):
        found.append(Series(f"profiling/{path.stem}", json.loads(path.read_text())["series"]))
    return found


def tigerbeetle(data: Path) -> list[Series]:
    loaded = json.loads((data / "perf" / "otava_tigerbeetle" / "tigerbeetle.json").read_text())
    return [Series("tigerbeetle", [float(value) for value in loaded["series"]])]


DATA_SETS: dict[str, Callable[[Path], list[Series]]] = {
    "pandas_asv": pandas,
    "django_asv": django,
    "mongodb": mongodb,
    "tigerbeetle": tigerbeetle,
}


# --- figures -------------------------------------------------------------------


def one_run_changes(points: list[int], length: int) -> int:
    """Change points that open or close a group of one run."""
    bounds = [0, *points, length]
    marked = set()
    for start, stop in itertools.pairwise(bounds):
        if stop - start == 1:
            marked.update(point for point in (start, stop) if 0 < point < length)
    return len(marked)


def near(point: int, others: Sequence[int]) -> bool:
    return any(abs(point - other) <= NEAR for other in others)


@dataclass
class Tally:
    series: int = 0
    points: int = 0
    changes: int = 0
    one_run: int = 0
    with_otava: int = 0
    flags: int = 0
    recalled: int = 0
    seconds: float = 0.0

    def add(self, item: Series, found: list[int], by_otava: list[int], seconds: float) -> None:
        found = [point for point in found if 0 < point < len(item.values)]
        self.series += 1
        self.points += len(item.values)
        self.changes += len(found)
        self.one_run += one_run_changes(found, len(item.values))
        self.with_otava += sum(near(point, by_otava) for point in found)
        self.flags += len(item.flags)
        self.recalled += sum(near(flag, found) for flag in item.flags)
        self.seconds += seconds


def share(part: int, whole: int) -> str:
    return f"{part / whole:6.1%}" if whole else "     -"


def evaluate(
    sets: dict[str, list[Series]], detectors: dict[str, Detector]
) -> dict[tuple[str, str, str], Tally]:
    tallies: dict[tuple[str, str, str], Tally] = defaultdict(Tally)
    for set_name, items in sets.items():
        for item in items:
            started = time.perf_counter()
            by_otava = otava(item.values)
            otava_seconds = time.perf_counter() - started
            for label, detector in detectors.items():
                if detector is otava:
                    found, seconds = by_otava, otava_seconds
                else:
                    started = time.perf_counter()
                    found = detector(item.values)
                    seconds = time.perf_counter() - started
                for split in (item.split, "all"):
                    tallies[(set_name, split, label)].add(item, found, by_otava, seconds)
    return tallies


def print_table(
    sets: dict[str, list[Series]],
    detectors: dict[str, Detector],
    tallies: dict[tuple[str, str, str], Tally],
) -> None:
    label_width = max(len(label) for label in detectors)
    header = (
        f"{'data set':12s} {'split':5s} {'detector':{label_width}s} {'series':>6s} "
        f"{'points':>8s} {'cps':>6s} {'1-run':>6s} {'otava':>6s} {'asv recall':>14s} {'time':>7s}"
    )
    print(header)
    print("-" * len(header))
    for set_name in sets:
        for split in ("A", "B", "all"):
            for label in detectors:
                tally = tallies.get((set_name, split, label))
                if tally is None:
                    continue
                agreement = (
                    "     -"
                    if detectors[label] is otava
                    else share(tally.with_otava, tally.changes)
                )
                recall = (
                    f"{tally.recalled:>4d}/{tally.flags:<4d}{share(tally.recalled, tally.flags)}"
                    if tally.flags
                    else f"{'-':>14s}"
                )
                print(
                    f"{set_name:12s} {split:5s} {label:{label_width}s} {tally.series:6d} "
                    f"{tally.points:8d} {tally.changes:6d} {share(tally.one_run, tally.changes)} "
                    f"{agreement} {recall} {tally.seconds:6.1f}s"
                )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument(
        "--max-series", type=int, default=300, help="per data set, first in hash order"
    )
    parser.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="KEY=VALUE[,KEY=VALUE...]",
        help="another detector: classify() parameters and AnomalyPolicy fields",
    )
    parser.add_argument("--only", action="append", choices=sorted(DATA_SETS), help="data sets")
    arguments = parser.parse_args(argv)
    detectors: dict[str, Detector] = {"default": project(""), "recommended": project(RECOMMENDED)}
    for text in arguments.setting:
        detectors[text] = project(text)
    detectors["otava"] = otava
    sets = {}
    for name in arguments.only or DATA_SETS:
        items = sorted(
            DATA_SETS[name](arguments.data),
            key=lambda item: hashlib.sha256(item.name.encode()).digest(),
        )
        sets[name] = [item for item in items if len(item.values) >= 2][: arguments.max_series]
    print(f"recommended = {RECOMMENDED}; change points agree within {NEAR} runs")
    print_table(sets, detectors, evaluate(sets, detectors))


if __name__ == "__main__":
    sys.exit(main())
