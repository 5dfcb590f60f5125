"""Robot Framework archives of both schemas parse to exactly what was written."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from tests.fixtures.generate import (
    DAILY_FAILURE,
    DAILY_JOB,
    DAILY_PROGRESSION,
    DAILY_REGRESSION,
    WEEKLY_JOB,
    WEEKLY_TG,
)
from tests.ingest.conftest import RF6, RF7_DAILY, RF7_WEEKLY, expected, load_paths

UTC = timezone.utc


def test_rf7_archives_match_every_generated_number() -> None:
    dataset = load_paths(RF7_DAILY)
    assert dataset.problems == []
    truth = expected(RF7_DAILY)
    assert [(b.job, b.build) for b in dataset.builds] == [(t["job"], t["build"]) for t in truth]
    for build, written in zip(dataset.builds, truth, strict=True):
        assert build.time == datetime.fromisoformat(written["time"])
        assert build.time.tzinfo is not None
        assert build.dut_version == written["dut_version"]
        assert build.testbed == "2n-skx"
        assert {t.test_id for t in build.tests} == set(written["outcomes"])
        for test in build.tests:
            outcome = written["outcomes"][test.test_id]
            assert test.status == outcome["status"]
            assert test.message == outcome["message"]
            got = {m.metric: list(m.values) for m in test.measurements}
            assert got == outcome["expected"]


def test_rf7_injected_events_are_where_the_scenario_put_them() -> None:
    builds = load_paths(RF7_DAILY).builds
    assert [b.job for b in builds] == [DAILY_JOB] * 6
    failing_test, failing_index = DAILY_FAILURE

    def series(name: str, metric: str = "mrr") -> list[float | None]:
        out = []
        for build in builds:
            test = next(t for t in build.tests if t.name == name.split("-", 1)[1])
            m = test.measurement(metric)
            out.append(None if m is None else sum(m.values) / len(m.values))
        return out

    failing = [next(t for t in b.tests if t.name == failing_test.split("-", 1)[1]) for b in builds]
    assert [t.status for t in failing].index("FAIL") == failing_index
    assert failing[failing_index].measurements == ()
    regression = series(DAILY_REGRESSION.test)
    before, after = regression[: DAILY_REGRESSION.at], regression[DAILY_REGRESSION.at :]
    assert max(after) < 0.9 * min(before)
    progression = series(DAILY_PROGRESSION.test)
    before, after = progression[: DAILY_PROGRESSION.at], progression[DAILY_PROGRESSION.at :]
    assert min(after) > 1.1 * max(before)


def test_rf7_test_fields() -> None:
    build = load_paths(RF7_DAILY).builds[0]
    test = next(t for t in build.tests if t.name == "64b-2t1c-ethip4-ip4base-mrr")
    assert (
        test.test_id
        == "tests.vpp.perf.ip4.2n1l-10ge2p1x710-ethip4-ip4base-mrr.64b-2t1c-ethip4-ip4base-mrr"
    )
    assert test.suite == "Tests.Vpp.Perf.Ip4.2N1L-10Ge2P1X710-Ethip4-Ip4Base-Mrr"
    assert set(test.tags) == {"MRR", "2T1C", "64B", "IP4BASE"}
    assert test.thread_core == "2T1C"
    assert test.start is not None and test.start.tzinfo is not None
    assert test.start < build.time
    assert len(test.measurement("mrr").values) == 10
    assert test.measurement("mrr").unit == "pps"
    cps = next(t for t in build.tests if "cps" in t.name)
    assert cps.measurement("cps").unit == "cps"
    ndr = next(t for t in build.tests if "ndrpdr" in t.name)
    assert [m.metric for m in ndr.measurements] == ["ndr", "pdr"]


def test_rf7_testbed_from_tg_address_and_from_job_pattern() -> None:
    by_map = load_paths(RF7_WEEKLY, testbed_map={WEEKLY_TG: "3n-hsw-lab"}).builds
    assert [b.testbed for b in by_map] == ["3n-hsw-lab", "3n-hsw-lab"]
    by_job = load_paths(
        RF7_WEEKLY, testbed_pattern=r"(?P<testbed>\d+n-[a-z]+)$", testbed_map={WEEKLY_TG: "x"}
    ).builds
    assert [b.testbed for b in by_job] == ["3n-hsw", "3n-hsw"]
    # without either, the job name's last two parts, as csit-dash names the testbed
    assert [b.testbed for b in load_paths(RF7_WEEKLY).builds] == ["3n-hsw", "3n-hsw"]
    assert [b.job for b in by_job] == [WEEKLY_JOB] * 2
    assert [b.build for b in by_job] == ["40", "41"]


def test_rf7_suite_metadata_testbed_wins_over_pattern_and_map() -> None:
    builds = load_paths(
        RF7_DAILY, testbed_pattern=r"\d+n-\w+$", testbed_map={"10.30.51.49": "m"}
    ).builds
    assert {b.testbed for b in builds} == {"2n-skx"}


def test_rebot_29_schema_hand_checked() -> None:
    dataset = load_paths(
        RF6 / "csit-vpp-perf-mrr-daily-master__517__output_info.xml",
        testbed_map={"10.30.51.49": "3n-hsw"},
    )
    assert dataset.problems == []
    (build,) = dataset.builds
    assert (build.job, build.build) == ("csit-vpp-perf-mrr-daily-master", "517")
    assert build.time == datetime(2019, 4, 10, 19, 5, 4, 321000, tzinfo=UTC)
    # The message in <errors> must not be taken: the first suite message wins.
    assert build.dut_version == "19.04-rc0~640-g05f7ca110~b2523"
    assert build.testbed == "3n-hsw"
    legacy, trials, failed, ndrpdr = build.tests
    assert legacy.test_id == "tests.ip4.10ge2p1x520-ethip4-ip4base-mrr.64b-1c-ethip4-ip4base-mrr"
    assert legacy.name == "64B-1c-ethip4-ip4base-mrr"
    assert legacy.tags == ("64B", "1C", "MRR", "ETH")
    assert legacy.thread_core == "1C"
    assert legacy.start == datetime(2019, 4, 10, 18, 57, 29, 2000, tzinfo=UTC)
    assert legacy.measurement("mrr").values == (9584731.0,)  # rx 95847310 / 10 s
    assert trials.measurement("mrr").values == (18110520.0, 18249130.5, 17955201.25)
    assert failed.status == "FAIL" and failed.measurements == ()
    assert failed.message == "Traffic rate too low: 0 pps received"
    assert ndrpdr.measurement("ndr").values == (12796187.5,)
    assert ndrpdr.measurement("pdr").values == (13018394.4,)


def test_rf6_schema_hand_checked() -> None:
    dataset = load_paths(RF6 / "csit-vpp-perf-mrr-daily-master__1120__output_info.xml")
    assert dataset.problems == []
    (build,) = dataset.builds
    assert build.time == datetime(2023, 3, 15, 3, 9, 59, 500000, tzinfo=UTC)
    assert build.dut_version == "23.06-rc0~184-g48cd559fb~b2193"
    assert build.testbed == "2n-icx"
    first, second, cps, skipped = build.tests
    assert first.thread_core == "2T1C"  # the NTmC tag beats the older NC tag
    assert second.thread_core == "4T2C"
    assert first.measurement("mrr").values == (23606123.4, 23711010.0, 23688549.7)
    assert cps.measurement("cps").values == (201000.5, 199500.0)
    assert skipped.status == "SKIP" and skipped.measurements == ()


def test_build_time_falls_back_to_generated(tmp_path) -> None:
    text = (RF6 / "csit-vpp-perf-mrr-daily-master__1120__output_info.xml").read_text()
    text = text.replace('starttime="20230315 02:30:58.000" endtime="20230315 03:09:59.500"', "")
    path = tmp_path / "job__7__output.xml"
    path.write_text(text)
    (build,) = load_paths(path).builds
    assert build.time == datetime(2023, 3, 15, 3, 10, tzinfo=UTC)


@pytest.mark.parametrize(
    ("pattern", "job", "build"),
    [
        (r"(?P<job>[^/]+)/(?P<build>\d+)/output\.xml$", "nightly", "12"),
        (r"/(?P<build>\d+)/output\.xml$", "output", "12"),
    ],
)
def test_build_pattern_is_configurable(tmp_path, pattern: str, job: str, build: str) -> None:
    folder = tmp_path / "nightly" / "12"
    folder.mkdir(parents=True)
    (folder / "output.xml").write_bytes(
        (RF6 / "csit-vpp-perf-mrr-daily-master__1120__output_info.xml").read_bytes()
    )
    dataset = load_paths(tmp_path, build_pattern=pattern)
    assert dataset.problems == []
    assert [(b.job, b.build) for b in dataset.builds] == [(job, build)]


def test_version_pattern_is_configurable() -> None:
    dataset = load_paths(RF7_DAILY, version_pattern=r"VPP version: (\d+\.\d+)")
    assert {b.dut_version for b in dataset.builds} == {"24.06"}


def test_name_not_matching_the_pattern_keeps_the_build_and_says_so(tmp_path) -> None:
    path = tmp_path / "results.xml"
    path.write_bytes((RF6 / "csit-vpp-perf-mrr-daily-master__1120__output_info.xml").read_bytes())
    dataset = load_paths(path, build_pattern=r"(?P<job>\w+)-(?P<build>\d+)\.xml$")
    (build,) = dataset.builds
    assert (build.job, build.build) == ("results", "20230315T030959.500000Z")
    (problem,) = dataset.problems
    assert problem.subtype == "data" and "does not match the build pattern" in problem.message


def test_plain_robot_output_names_itself_without_a_warning(tmp_path) -> None:
    """Not CSIT's {job}__{build}__ names: the top suite is the job, the end time the build."""
    path = tmp_path / "results.xml"
    path.write_bytes((RF6 / "csit-vpp-perf-mrr-daily-master__1120__output_info.xml").read_bytes())
    dataset = load_paths(path)
    assert dataset.problems == []
    (build,) = dataset.builds
    assert (build.job, build.build) == ("Tests", "20230315T030959.500000Z")


def test_metadata_before_the_tests_is_not_lost(tmp_path) -> None:
    """Some old writers put <metadata> first; it is freed with the setup, but kept."""
    text = """<robot generated="20200101 10:00:00.000">
<suite name="Top"><metadata><item name="Testbed">3n-tsh</item></metadata>
<kw type="setup" name="s">
<msg timestamp="20200101 10:00:00.100" level="INFO">VPP version: 20.01</msg>
<status status="PASS" starttime="20200101 10:00:00.000" endtime="20200101 10:00:01.000"/></kw>
<suite name="Inner"><test name="tc01-x"><tags><tag>1T1C</tag></tags>
<status status="PASS" starttime="20200101 10:00:02.000" endtime="20200101 10:00:03.000">
NDR_LOWER: 5.0 pps</status></test>
<status status="PASS" starttime="20200101 10:00:01.500" endtime="20200101 10:00:04.000"/></suite>
<status status="PASS" starttime="20200101 10:00:00.000" endtime="20200101 10:00:05.000"/></suite>
</robot>"""
    path = tmp_path / "job__3__output.xml"
    path.write_text(text)
    dataset = load_paths(path)
    assert dataset.problems == []
    (build,) = dataset.builds
    assert (build.testbed, build.dut_version) == ("3n-tsh", "20.01")
    assert build.time == datetime(2020, 1, 1, 10, 0, 5, tzinfo=UTC)
    (test,) = build.tests
    assert (test.test_id, test.suite, test.thread_core) == ("top.inner.x", "Top.Inner", "1T1C")
    assert test.measurement("ndr").values == (5.0,)


def test_the_first_version_message_in_document_order_wins(tmp_path) -> None:
    def keyword(version: str) -> str:
        return (
            f'<kw name="k"><msg time="2024-01-01T00:00:00.000001" level="INFO">'
            f"VPP version: {version}</msg>"
            '<status status="PASS" start="2024-01-01T00:00:00.000001" elapsed="0.1"/></kw>'
        )

    status = '<status status="PASS" start="2024-01-01T00:00:00.000000" elapsed="3.0"/>'
    text = (
        '<robot generated="2024-01-01T00:00:00.000000"><suite name="Outer">'
        f'<kw name="setup" type="SETUP">{keyword("first")}</kw>'
        f'<kw name="setup" type="SETUP">{keyword("second")}</kw><suite name="Inner">'
        f'<kw name="setup" type="SETUP">{keyword("third")}</kw>'
        f'<test name="t">{keyword("fourth")}{status}</test>'
        f"{status}</suite>{status}</suite></robot>"
    )
    path = tmp_path / "job__1__output.xml"
    path.write_text(text)
    assert load_paths(path).builds[0].dut_version == "first"


def test_messages_above_libxml2s_10_mb_limit_are_read(tmp_path) -> None:
    huge = "x" * (11 * 2**20)
    text = (
        '<robot generated="2024-01-01T00:00:00.000000"><suite name="S"><test name="t">'
        f'<kw name="dump"><msg time="2024-01-01T00:00:00.1" level="INFO">{huge}</msg></kw>'
        '<status status="PASS" start="2024-01-01T00:00:00.000000" elapsed="1.0">'
        "NDR_LOWER: 2.0 pps</status></test>"
        '<status status="PASS" start="2024-01-01T00:00:00.000000" elapsed="2.0"/></suite></robot>'
    )
    path = tmp_path / "job__1__output.xml"
    path.write_text(text)
    dataset = load_paths(path)
    assert dataset.problems == []
    assert dataset.builds[0].tests[0].measurement("ndr").values == (2.0,)
