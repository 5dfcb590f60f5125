"""Generate real Robot Framework archives in the CSIT style, with known numbers.

Each build is one real ``robot`` run over generated ``.robot`` suites whose
tests set CSIT result messages; the output is then shifted in time so the
build lands exactly at a chosen moment (RF records wall-clock time), and
gzipped as ``{job}__{build}__output_info.xml.gz``.  Every number written is
returned in :class:`GeneratedBuild`, so a test can inject a regression,
progression or failure at a known build and assert exact values.

Import it (``from tools.make_robot_archive import generate_archive``) or run
it::

    python tools/make_robot_archive.py OUT_DIR --job JOB --builds 10 \\
        --start 2024-05-01T02:00:00 --interval-hours 24 \\
        --change tc01-64b-1t1c-ethip4-ip4base-mrr:5:0.8 --fail tc02-64b-2t1c-ethip4-ip4base-mrr:3
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import random
import sys
import tempfile
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from lxml import etree

MRR_LINE = "Maximum Receive Rate trial results in packets per second: "
CPS_LINE = "Maximum Receive Rate trial results in estimated connections per second: "
DEFAULT_JOB = "csit-vpp-perf-mrr-daily-master-2n-skx"
DEFAULT_START = datetime(2024, 5, 1, 2, 0, tzinfo=timezone.utc)


@dataclass(frozen=True)
class TestPlan:
    """One test case of the generated suites.

    ``kind`` is ``mrr`` (ten trial values), ``cps`` (connections per second
    trials) or ``ndrpdr`` (NDR_LOWER and PDR_LOWER lines); ``base`` is the
    level before any :class:`Change`.
    """

    __test__ = False  # a plan, not a pytest test class

    suite: str
    name: str
    tags: tuple[str, ...]
    kind: str = "mrr"
    base: float = 10e6

    @property
    def test_id(self) -> str:
        """The id the ingest layer gives this test: lower-cased, no ``tcNN-``."""
        parts = f"{self.suite}.{self.name}".lower().split(".")
        return ".".join(_strip_tc(part) for part in parts)


@dataclass(frozen=True)
class Change:
    """From build index ``at`` (0-based) on, ``test`` runs at ``factor`` x its level."""

    test: str
    at: int
    factor: float


@dataclass(frozen=True)
class Outcome:
    """What one test did in one build: ``expected`` maps metric -> values."""

    status: str
    message: str
    expected: dict[str, tuple[float, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class GeneratedBuild:
    job: str
    build: str
    time: datetime
    dut_version: str
    testbed: str | None
    path: Path
    outcomes: dict[str, Outcome]

    def to_json(self) -> dict[str, object]:
        return {
            "job": self.job,
            "build": self.build,
            "time": self.time.isoformat(),
            "dut_version": self.dut_version,
            "testbed": self.testbed,
            "file": self.path.name,
            "outcomes": {
                test_id: {
                    "status": outcome.status,
                    "message": outcome.message,
                    "expected": {
                        metric: list(values) for metric, values in outcome.expected.items()
                    },
                }
                for test_id, outcome in self.outcomes.items()
            },
        }


ValuesFn = Callable[[TestPlan, int, float, random.Random], dict[str, tuple[float, ...]]]

_IP4 = "tests.vpp.perf.ip4.2n1l-10ge2p1x710-ethip4-ip4base-mrr"
_L2 = "tests.vpp.perf.l2.2n1l-10ge2p1x710-eth-l2bdbasemaclrn-mrr"
_NDR = "tests.vpp.perf.ip4.2n1l-10ge2p1x710-ethip4-ip4base-ndrpdr"
_CPS = "tests.vpp.perf.hoststack.2n1l-10ge2p1x710-eth-ip4tcpbase-cps"

DEFAULT_TESTS: tuple[TestPlan, ...] = (
    TestPlan(
        _IP4, "tc01-64b-1t1c-ethip4-ip4base-mrr", ("MRR", "1T1C", "64B", "IP4BASE"), base=12.5e6
    ),
    TestPlan(
        _IP4, "tc02-64b-2t1c-ethip4-ip4base-mrr", ("MRR", "2T1C", "64B", "IP4BASE"), base=24.0e6
    ),
    TestPlan(
        _L2,
        "tc01-64b-1t1c-eth-l2bdbasemaclrn-mrr",
        ("MRR", "1T1C", "64B", "L2BDMACLRN"),
        base=9.8e6,
    ),
    TestPlan(
        _L2,
        "tc02-64b-2t1c-eth-l2bdbasemaclrn-mrr",
        ("MRR", "2T1C", "64B", "L2BDMACLRN"),
        base=18.9e6,
    ),
    TestPlan(
        _NDR, "tc01-64b-1t1c-ethip4-ip4base-ndrpdr", ("NDRPDR", "1T1C", "64B"), "ndrpdr", 11.0e6
    ),
    TestPlan(_CPS, "tc01-64b-1t1c-eth-ip4tcpbase-cps", ("CPS", "1T1C", "TCP"), "cps", 120000.0),
)


def _strip_tc(part: str) -> str:
    head, dash, rest = part.partition("-")
    return rest if dash and head[:2] == "tc" and head[2:].isdigit() else part


def default_values(
    plan: TestPlan, index: int, level: float, rng: random.Random
) -> dict[str, tuple[float, ...]]:
    """CSIT-like numbers: ten trials with 2 % noise; NDR/PDR as single bounds."""
    del index
    if plan.kind == "ndrpdr":
        ndr = round(level * (1 + rng.gauss(0, 0.01)), 1)
        return {"ndr": (ndr,), "pdr": (round(ndr * 1.04, 1),)}
    metric = "cps" if plan.kind == "cps" else "mrr"
    return {metric: tuple(round(level * (1 + rng.gauss(0, 0.02)), 1) for _ in range(10))}


def default_version(index: int) -> str:
    return f"24.06-rc0~{100 + index}-g{index * 7919 % 0xFFFFFFF:07x}~b{1000 + index}"


def result_message(plan: TestPlan, expected: dict[str, tuple[float, ...]]) -> str:
    """The test message as CSIT writes it (robot escapes: ``\\n`` is a newline)."""
    if plan.kind == "ndrpdr":
        return f"NDR_LOWER: {expected['ndr'][0]!r} pps\nPDR_LOWER: {expected['pdr'][0]!r} pps"
    line = CPS_LINE if plan.kind == "cps" else MRR_LINE
    values = expected["cps" if plan.kind == "cps" else "mrr"]
    return line + "[" + ", ".join(repr(value) for value in values) + "]"


def _robot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


_STARTUP_CONF = (  # robot syntax: two spaces would split arguments, so one-space indents
    "unix {\\n nodaemon\\n log /var/log/vpp/vpp.log\\n cli-listen /run/vpp/cli.sock\\n}\\n"
    "cpu {\\n main-core 1\\n corelist-workers 2\\n}\\nbuffers {\\n buffers-per-numa 215040\\n}\\n"
    "dpdk {\\n dev 0000:18:00.0\\n dev 0000:18:00.1\\n no-tx-checksum-offload\\n}"
)

# The keyword structure of a CSIT MRR test: setup steps, then ten one-second
# trials in a FOR loop, each logging what the traffic generator did.
_KEYWORDS = f"""Set Max Rate And Jumbo
    Log    Max rate set to 14880952.38 pps, jumbo frames disabled

Add Worker Threads To All Duts
    [Arguments]    ${{threads}}    ${{cores}}
    Log    Adding ${{threads}} worker threads on ${{cores}} physical cores to DUT1 and DUT2

Apply Startup Configuration On All Vpp Duts
    Log    {_STARTUP_CONF}
    Log    Waiting for VPP to come up on DUT1
    Log    VPP is up on DUT1

Initialize Layer Interface
    Log    Interfaces configured: TenGigabitEthernet18/0/0, TenGigabitEthernet18/0/1

Find Maximum Receive Rate
    [Arguments]    ${{trials}}
    FOR    ${{trial}}    IN RANGE    ${{trials}}
        Send Traffic At Specified Rate    ${{trial}}
    END

Send Traffic At Specified Rate
    [Arguments]    ${{trial}}
    Log    Trial ${{trial}}: sending traffic for 1 s at 14880952.38 pps
    Log    Trial ${{trial}}: stats {{'rate': 14880952.38, 'duration': 1.0, 'frame_size': 64}}
"""


def _suite_file(
    plans: Sequence[TestPlan],
    outcomes: dict[str, Outcome],
    version: str,
    testbed: str | None,
    tg_address: str | None,
) -> str:
    lines = ["*** Settings ***", "Documentation    Generated by tools/make_robot_archive.py"]
    if testbed:
        lines.append(f"Metadata    testbed    {testbed}")
    lines += ["Suite Setup    Set Up Suite", "", "*** Test Cases ***"]
    for plan in plans:
        outcome = outcomes[plan.test_id]
        lines += [
            plan.name,
            "    [Tags]    " + "    ".join(plan.tags),
            "    Set Max Rate And Jumbo",
            "    Add Worker Threads To All Duts    1    1",
            "    Apply Startup Configuration On All Vpp Duts",
            "    Initialize Layer Interface",
            "    Find Maximum Receive Rate    10",
        ]
        if outcome.status == "PASS":
            lines.append(f"    Set Test Message    {_robot_escape(outcome.message)}")
        else:
            lines.append(f"    Fail    {_robot_escape(outcome.message)}")
    lines += ["", "*** Keywords ***", "Set Up Suite"]
    if tg_address:
        lines.append(f"    Log    Setup of TG node {tg_address} done")
    lines += [
        "    Show Vpp Version On All Duts",
        "",
        "Show Vpp Version On All Duts",
        f"    Log    VPP version: {version}",
        "",
        _KEYWORDS,
    ]
    return "\n".join(lines)


def _run_robot(root: Path, output: Path, variables: Sequence[str] = ()) -> None:
    import robot

    captured = io.StringIO()
    rc = robot.run(
        str(root / "tests"),
        output=str(output),
        variable=list(variables),
        log="NONE",
        report="NONE",
        console="none",
        stdout=captured,
        stderr=captured,
    )
    if rc >= 250:
        raise RuntimeError(f"robot failed (rc {rc}): {captured.getvalue()}")


_RF7_TIME = "%Y-%m-%dT%H:%M:%S.%f"
_RF6_TIME = "%Y%m%d %H:%M:%S.%f"


def _read_time(text: str) -> tuple[datetime, str]:
    style = _RF6_TIME if len(text) > 8 and text[8] == " " else _RF7_TIME
    if style == _RF7_TIME and "." not in text:
        # RF 7 writes isoformat(), which drops the fraction on a whole second.
        return datetime.fromisoformat(text), style
    return datetime.strptime(text, style), style


def _write_time(moment: datetime, style: str) -> str:
    text = moment.strftime(style)
    return text[:-3] if style == _RF6_TIME else text


def top_suite_end(root: etree._Element) -> datetime:
    """End of the top suite in either schema, as a naive UTC datetime."""
    status = root.find("suite/status")
    if status is None:
        raise ValueError("no top suite status")
    if status.get("endtime"):
        return _read_time(status.get("endtime", ""))[0]
    start = _read_time(status.get("start", ""))[0]
    return start + timedelta(seconds=float(status.get("elapsed", "0")))


def _top_suite_start(root: etree._Element) -> datetime:
    status = root.find("suite/status")
    if status is None:
        raise ValueError("no top suite status")
    return _read_time(status.get("starttime") or status.get("start", ""))[0]


def stretch_times(root: etree._Element, duration: timedelta) -> None:
    """Scale every time about the top suite's start so the run lasts ``duration``.

    The generated keywords finish in milliseconds, where a real CSIT build
    runs for hours: stretched, the tests keep their order and relative
    lengths and the build gets a duration worth showing.  RF 7 ``elapsed``
    (seconds) scales by the same factor.  Stretched times are whole seconds:
    sub-second digits blown up from robot's milliseconds would be noise that
    only makes the demo archive larger.
    """
    origin = _top_suite_start(root)
    measured = (top_suite_end(root) - origin).total_seconds()
    factor = duration.total_seconds() / max(measured, 1e-3)
    for element in root.iter():
        for attribute in ("start", "starttime", "endtime"):
            value = element.get(attribute)
            if value and value != "N/A":
                moment, style = _read_time(value)
                offset = timedelta(seconds=round((moment - origin).total_seconds() * factor))
                element.set(attribute, _write_time(origin + offset, style))
        elapsed = element.get("elapsed")
        if elapsed is not None:
            element.set("elapsed", f"{round(float(elapsed) * factor)}.000000")


def shift_times(root: etree._Element, build_time: datetime) -> None:
    """Move every timestamp so the top suite ends exactly at ``build_time``.

    RF 7 ``start``/``time``/``generated`` and RF <= 6 ``starttime``/
    ``endtime``/``timestamp``/``generated`` all move by the same offset;
    durations (``elapsed``) stay as robot measured them.
    """
    target = build_time.astimezone(timezone.utc).replace(tzinfo=None)
    offset = target - top_suite_end(root)
    for element in root.iter():
        for attribute in ("start", "time", "generated", "starttime", "endtime", "timestamp"):
            value = element.get(attribute)
            if value and value != "N/A":
                moment, style = _read_time(value)
                element.set(attribute, _write_time(moment + offset, style))


def _stable_sources(root: etree._Element, workdir: Path) -> None:
    """Temporary paths in ``source`` attributes become ``/csit/...`` (reproducible files)."""
    prefix = str(workdir)
    for suite in root.iter("suite"):
        source = suite.get("source")
        if source and source.startswith(prefix):
            suite.set("source", "/csit" + source[len(prefix) :])


def _check_statuses(
    root: etree._Element, tests: Sequence[TestPlan], outcomes: dict[str, Outcome]
) -> None:
    """A test robot failed on its own (a broken generated suite) must not pass as data."""
    wanted = {(plan.suite.rsplit(".", 1)[-1], plan.name): outcomes[plan.test_id] for plan in tests}
    for test in root.iter("test"):
        suite = Path(test.getparent().get("source", "")).stem
        status = test.find("status")
        got = (status.get("status"), status.text or "") if status is not None else None
        outcome = wanted.get((suite, test.get("name", "")))
        if outcome is None or got != (outcome.status, outcome.message):
            raise RuntimeError(f"robot test {suite}.{test.get('name')} ended {got}, not as planned")


def build_file_name(job: str, build: str) -> str:
    return f"{job}__{build}__output_info.xml.gz"


def generate_build(
    out_dir: Path,
    *,
    job: str,
    build: str,
    time: datetime,
    tests: Sequence[TestPlan],
    outcomes: dict[str, Outcome],
    version: str,
    testbed: str | None = "2n-skx",
    tg_address: str | None = "10.30.51.49",
    duration: timedelta | None = None,
) -> GeneratedBuild:
    """One robot run producing one archive with exactly these outcomes.

    ``duration``, when given, is how long the run appears to take (see
    :func:`stretch_times`); otherwise it keeps robot's own milliseconds.
    """
    with tempfile.TemporaryDirectory(prefix="robot-archive-") as scratch:
        workdir = Path(scratch)
        by_suite: dict[str, list[TestPlan]] = {}
        for plan in tests:
            by_suite.setdefault(plan.suite, []).append(plan)
        for suite, plans in by_suite.items():
            path = workdir.joinpath(*suite.split(".")).with_suffix(".robot")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(_suite_file(plans, outcomes, version, testbed, tg_address))
        output = workdir / "output.xml"
        _run_robot(workdir, output)
        root = etree.parse(str(output)).getroot()
    _check_statuses(root, tests, outcomes)
    if duration is not None:
        stretch_times(root, duration)
    shift_times(root, time)
    _stable_sources(root, workdir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / build_file_name(job, build)
    payload = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    with (
        target.open("wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as packed,
    ):
        packed.write(payload)
    return GeneratedBuild(job, build, time, version, testbed, target, outcomes)


def run_plain_robot(
    target: Path, suites: dict[str, str], *, end: datetime, variables: Sequence[str] = ()
) -> None:
    """One real robot run over ``suites`` (relative path -> suite text), as plain output.

    No CSIT naming and no result conventions: ``target`` is the
    ``output.xml`` of an ordinary Robot Framework project, with every time
    moved so the run ends exactly at ``end``.  ``variables`` are robot's
    ``--variable NAME:VALUE``.
    """
    with tempfile.TemporaryDirectory(prefix="robot-plain-") as scratch:
        workdir = Path(scratch)
        for relative, text in suites.items():
            path = workdir / "tests" / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        output = workdir / "output.xml"
        _run_robot(workdir, output, variables)
        root = etree.parse(str(output)).getroot()
    shift_times(root, end)
    _stable_sources(root, workdir)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))


def plan_outcomes(
    tests: Sequence[TestPlan],
    index: int,
    rng: random.Random,
    *,
    changes: Collection[Change] = (),
    failures: Collection[tuple[str, int]] = (),
    values_fn: ValuesFn = default_values,
) -> dict[str, Outcome]:
    """Outcomes of build ``index``: changes are cumulative steps, failures exact."""
    outcomes = {}
    for plan in tests:
        level = plan.base
        for change in changes:
            if change.test in (plan.name, plan.test_id) and index >= change.at:
                level *= change.factor
        expected = values_fn(plan, index, level, rng)
        if (plan.name, index) in failures or (plan.test_id, index) in failures:
            message = "Traffic generator reported no received packets: link down on port 0"
            outcomes[plan.test_id] = Outcome("FAIL", message)
        else:
            outcomes[plan.test_id] = Outcome("PASS", result_message(plan, expected), expected)
    return outcomes


def generate_archive(
    out_dir: Path,
    *,
    job: str = DEFAULT_JOB,
    builds: int = 5,
    first_build: int = 1,
    tests: Sequence[TestPlan] = DEFAULT_TESTS,
    start: datetime = DEFAULT_START,
    interval: timedelta = timedelta(days=1),
    changes: Collection[Change] = (),
    failures: Collection[tuple[str, int]] = (),
    values_fn: ValuesFn = default_values,
    version_fn: Callable[[int], str] = default_version,
    testbed: str | None = "2n-skx",
    tg_address: str | None = "10.30.51.49",
    seed: int = 1,
    duration_fn: Callable[[int], timedelta] | None = None,
) -> list[GeneratedBuild]:
    """``builds`` consecutive builds of ``job``; build ``i`` ends at ``start + i * interval``.

    ``changes`` inject regressions (factor < 1) and progressions (factor > 1);
    ``failures`` holds (test name or id, build index) pairs that fail.  The
    same seed gives the same numbers.  ``duration_fn`` gives build ``i``'s
    run time (robot's own milliseconds without it).
    """
    rng = random.Random(seed)
    generated = []
    for index in range(builds):
        outcomes = plan_outcomes(
            tests, index, rng, changes=changes, failures=failures, values_fn=values_fn
        )
        generated.append(
            generate_build(
                out_dir,
                job=job,
                build=str(first_build + index),
                time=start + index * interval,
                tests=tests,
                outcomes=outcomes,
                version=version_fn(index),
                testbed=testbed,
                tg_address=tg_address,
                duration=None if duration_fn is None else duration_fn(index),
            )
        )
    return generated


def write_large_output(target: Path, *, target_bytes: int, seed: int = 1) -> int:
    """A plain output.xml of at least ``target_bytes``, made of real robot output.

    One real build is generated, then its suites (setup keyword, tests,
    status) are written again and again under new suite names, so the big
    file has exactly the element structure robot writes.  Returns the number
    of tests written.  Used by the benchmark and the bounded-memory test.
    """
    with tempfile.TemporaryDirectory(prefix="robot-large-") as scratch:
        build = generate_archive(Path(scratch), builds=1, seed=seed)[0]
        root = etree.fromstring(gzip.decompress(build.path.read_bytes()))
    leaves = [suite for suite in root.iter("suite") if suite.find("test") is not None]
    top_status = etree.tostring(root.find("suite/status"))
    attributes = " ".join(
        f'{name}="{root.get(name)}"' for name in ("generator", "generated", "schemaversion")
    )
    head = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<robot {attributes} rpa="false">\n'
        '<suite id="s1" name="Tests" source="/csit/tests">\n'
    )
    written = tests = 0
    with target.open("wb") as out:
        written += out.write(head.encode())
        copy = 0
        while written < target_bytes:
            for leaf in leaves:
                copy += 1
                suite = etree.Element("suite", id=f"s1-s{copy}", name=f"{leaf.get('name')}-{copy}")
                suite.extend(etree.fromstring(etree.tostring(child)) for child in leaf)
                tests += len(suite.findall("test"))
                written += out.write(etree.tostring(suite) + b"\n")
        out.write(top_status + b"\n</suite>\n<statistics/>\n<errors/>\n</robot>\n")
    return tests


def write_expectations(path: Path, builds: Sequence[GeneratedBuild]) -> None:
    path.write_text(json.dumps([build.to_json() for build in builds], indent=1) + "\n")


def _parse_change(text: str) -> Change:
    test, at, factor = text.rsplit(":", 2)
    return Change(test, int(at), float(factor))


def _parse_failure(text: str) -> tuple[str, int]:
    test, at = text.rsplit(":", 1)
    return test, int(at)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--job", default=DEFAULT_JOB)
    parser.add_argument("--builds", type=int, default=5)
    parser.add_argument("--first-build", type=int, default=1)
    parser.add_argument("--start", type=datetime.fromisoformat, default=DEFAULT_START)
    parser.add_argument("--interval-hours", type=float, default=24.0)
    parser.add_argument(
        "--change",
        type=_parse_change,
        action="append",
        default=[],
        metavar="TEST:BUILD_INDEX:FACTOR",
    )
    parser.add_argument(
        "--fail", type=_parse_failure, action="append", default=[], metavar="TEST:BUILD_INDEX"
    )
    parser.add_argument("--testbed", default="2n-skx", help="suite metadata testbed ('' for none)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--expectations", type=Path, help="write the generated numbers as JSON here"
    )
    args = parser.parse_args(argv)
    start = args.start if args.start.tzinfo else args.start.replace(tzinfo=timezone.utc)
    builds = generate_archive(
        args.out_dir,
        job=args.job,
        builds=args.builds,
        first_build=args.first_build,
        start=start,
        interval=timedelta(hours=args.interval_hours),
        changes=args.change,
        failures=args.fail,
        testbed=args.testbed or None,
        seed=args.seed,
    )
    if args.expectations:
        write_expectations(args.expectations, builds)
    for build in builds:
        print(build.path, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
