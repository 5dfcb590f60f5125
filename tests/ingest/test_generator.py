"""tools/make_robot_archive.py: real robot runs with known numbers, at chosen times."""

from __future__ import annotations

import gzip
from datetime import datetime, timedelta, timezone
from pathlib import Path

from lxml import etree

from tests.ingest.conftest import RF6, load_paths
from tools.make_robot_archive import (
    DEFAULT_TESTS,
    Change,
    TestPlan,
    generate_archive,
    main,
    plan_outcomes,
    shift_times,
    top_suite_end,
)

UTC = timezone.utc
PLAN = TestPlan("tests.vpp.perf.ip4.2n1l-x-mrr", "tc01-64b-1t1c-x-mrr", ("MRR", "1T1C"), base=1e6)


def test_generated_builds_parse_back_to_the_injected_numbers(tmp_path: Path) -> None:
    start = datetime(2024, 2, 1, 6, 30, tzinfo=UTC)
    builds = generate_archive(
        tmp_path,
        job="job-a",
        builds=3,
        tests=(PLAN,),
        start=start,
        interval=timedelta(hours=12),
        changes=(Change(PLAN.name, at=1, factor=0.5),),
        failures=((PLAN.name, 2),),
        values_fn=lambda plan, index, level, rng: {"mrr": (level, level + index)},
        version_fn=lambda index: f"v{index}",
        testbed=None,
        tg_address=None,
    )
    assert [b.path.name for b in builds] == [f"job-a__{n}__output_info.xml.gz" for n in (1, 2, 3)]
    dataset = load_paths(tmp_path)
    assert dataset.problems == []
    parsed = dataset.builds
    assert [b.time for b in parsed] == [
        start,
        start + timedelta(hours=12),
        start + timedelta(hours=24),
    ]
    assert [b.dut_version for b in parsed] == ["v0", "v1", "v2"]
    assert [b.testbed for b in parsed] == [None, None, None]
    values = [b.tests[0].measurement("mrr") for b in parsed]
    assert values[0].values == (1e6, 1e6)
    assert values[1].values == (5e5, 5e5 + 1)
    assert values[2] is None and parsed[2].tests[0].status == "FAIL"
    assert (
        parsed[0].tests[0].test_id == PLAN.test_id == "tests.vpp.perf.ip4.2n1l-x-mrr.64b-1t1c-x-mrr"
    )


def test_same_seed_same_numbers_and_failures_do_not_shift_them() -> None:
    import random

    plain = plan_outcomes(DEFAULT_TESTS, 0, random.Random(3))
    with_failure = plan_outcomes(
        DEFAULT_TESTS, 0, random.Random(3), failures={(DEFAULT_TESTS[0].name, 0)}
    )
    assert plain == plan_outcomes(DEFAULT_TESTS, 0, random.Random(3))
    assert with_failure[DEFAULT_TESTS[0].test_id].status == "FAIL"
    for plan in DEFAULT_TESTS[1:]:
        assert with_failure[plan.test_id] == plain[plan.test_id]


def test_shift_times_moves_every_rf6_timestamp_consistently() -> None:
    root = etree.parse(str(RF6 / "csit-vpp-perf-mrr-daily-master__517__output_info.xml")).getroot()
    before = [dict(e.attrib) for e in root.iter()]
    target = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
    shift_times(root, target)
    assert top_suite_end(root) == datetime(2030, 1, 1, 12, 0)
    offset = target.replace(tzinfo=None) - datetime(2019, 4, 10, 19, 5, 4, 321000)
    moved = 0
    for element, original in zip(root.iter(), before, strict=True):
        for name in ("starttime", "endtime", "timestamp", "generated"):
            if name in element.attrib:
                old = datetime.strptime(original[name], "%Y%m%d %H:%M:%S.%f")
                assert element.get(name) == (old + offset).strftime("%Y%m%d %H:%M:%S.%f")[:-3]
                moved += 1
    text = (RF6 / "csit-vpp-perf-mrr-daily-master__517__output_info.xml").read_text()
    assert moved == sum(
        text.count(f' {name}="') for name in ("starttime", "endtime", "timestamp", "generated")
    )


def test_cli_writes_archives_and_expectations(tmp_path: Path) -> None:
    code = main(
        [
            str(tmp_path),
            "--job",
            "cli-job",
            "--builds",
            "2",
            "--start",
            "2024-01-01T00:00:00",
            "--fail",
            "tc01-64b-1t1c-ethip4-ip4base-mrr:1",
            "--expectations",
            str(tmp_path / "e.json"),
        ]
    )
    assert code == 0
    files = sorted(tmp_path.glob("*.xml.gz"))
    assert [f.name for f in files] == [
        "cli-job__1__output_info.xml.gz",
        "cli-job__2__output_info.xml.gz",
    ]
    text = gzip.decompress(files[0].read_bytes()).decode()
    assert 'generator="Robot 7' in text and "Show Vpp Version On All Duts" in text
    assert (tmp_path / "e.json").exists()
    builds = load_paths(tmp_path).builds
    failing = [t.status for b in builds for t in b.tests if t.name == "64b-1t1c-ethip4-ip4base-mrr"]
    assert failing == ["PASS", "FAIL"]


def test_a_stretched_run_lasts_the_duration_asked_for(tmp_path: Path) -> None:
    from sphinxcontrib_trending.analysis.job_stats import build_stats

    end = datetime(2024, 2, 1, 6, 30, tzinfo=UTC)
    generate_archive(
        tmp_path,
        builds=1,
        tests=DEFAULT_TESTS[:3],
        start=end,
        duration_fn=lambda index: timedelta(hours=2),
    )
    (build,) = load_paths(tmp_path).builds
    assert build.time == end
    starts = sorted(test.start for test in build.tests)
    assert end - timedelta(hours=2) <= starts[0] < starts[-1] < end
    duration = build_stats(build).duration
    # first test's start to the last one's (the last test's own run time is not in the data)
    assert duration is not None and timedelta(minutes=20) < duration < timedelta(hours=2)
