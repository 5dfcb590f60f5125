"""NDR/PDR bounds and latencies from a real robot run, in both CSIT wordings.

The suite's keywords build the test message the way CSIT's
``performance_display.robot`` (current wording) and its predecessors
(legacy ``NDR_LOWER``/``NDR_UPPER``, ``Latency at N% PDR``) do: appended
pieces, and a latency list that Robot Framework turns into text itself.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from sphinxcontrib_trending.ingest.model import TestResult
from tests.csit_robot import DISPLAY_KEYWORDS, DISPLAY_RESOURCE
from tests.ingest.conftest import load_paths
from tests.latency_data import hdrh_of
from tools.make_robot_archive import run_plain_robot

HISTOGRAM = hdrh_of(10, 20, 20, 30)

SUITE = """\
*** Settings ***
Resource    csit_display.resource

*** Test Cases ***
tc01-64B-1c-ethip4-ip4base-ndrpdr
    [Tags]    NDRPDR    1C    64B
    Display Single PPS Bound    NDR    12345678.9    8.296    1/2/3/${HISTOGRAM}    4/5/6/
    Display Single PPS Bound    PDR    13000000.0    8.736
    Show Latency At Load    Latency at 90% PDR:    10/20/30/${HISTOGRAM}    11/21/31/
    Show Latency At Load    Latency at 50% PDR:    7/8/9/    -1/-1/-1/
    Show Latency At Load    Latency at 10% PDR:    4/5/6/    4/6/8/
    Show Latency At Load    Latency at 0% PDR:    1/2/3/    2/3/4/

tc02-64B-1c-ethip4-ip4base-cps-ndrpdr
    [Tags]    NDRPDR    1C    64B
    Set Test Message    ${\\n}NDR: 250000.0 CPS    append=yes
    Set Test Message    ${\\n}PDR: 260000.5 CPS    append=yes

tc03-64B-1c-ethip4-ip4base-legacy-ndrpdr
    [Tags]    NDRPDR    1C    64B
    Display Single PPS Bound    NDR_LOWER    1500000.0    1.008    5/9/20/    6/10/21/
    Display Single PPS Bound    NDR_UPPER    2000000.0    1.344
    Display Single PPS Bound    PDR_LOWER    1750000.0    1.176    5/9/20/    6/10/21/
    Display Single PPS Bound    PDR_UPPER    1800000.5    1.210

*** Keywords ***
Show Latency At Load
    [Arguments]    ${prefix}    @{streams}
    ${latency} =    Create List    @{streams}
    Set Test Message    ${\\n}${prefix} ${latency}    append=yes
"""


@pytest.fixture(scope="module")
def tests_by_name(tmp_path_factory: pytest.TempPathFactory) -> dict[str, TestResult]:
    output = tmp_path_factory.mktemp("bounds") / "output.xml"
    run_plain_robot(
        output,
        {"bounds.robot": SUITE, DISPLAY_RESOURCE: DISPLAY_KEYWORDS},
        end=datetime(2024, 5, 1, 2, tzinfo=timezone.utc),
        variables=[f"HISTOGRAM:{HISTOGRAM}"],
    )
    dataset = load_paths(output)
    assert dataset.problems == []
    (build,) = dataset.builds
    return {test.name: test for test in build.tests}


def _values(test: TestResult) -> dict[str, tuple[str, tuple[float, ...]]]:
    return {m.metric: (m.unit, m.values) for m in test.measurements}


def test_current_wording_gives_bounds_bandwidths_and_latencies(
    tests_by_name: dict[str, TestResult],
) -> None:
    test = tests_by_name["64B-1c-ethip4-ip4base-ndrpdr"]
    assert test.status == "PASS"
    assert "NDR: 12345678.9 pps, 8.296 Gbps (initial)" in test.message
    assert f"Latency at 90% PDR: ['10/20/30/{HISTOGRAM}', '11/21/31/']" in test.message
    got = _values(test)
    assert got["ndr"] == ("pps", (12345678.9,))
    assert got["pdr"] == ("pps", (13e6,))
    assert got["ndr_bandwidth"][0] == "bps"
    assert got["ndr_bandwidth"][1] == pytest.approx((8.296e9,))
    assert got["pdr_bandwidth"][1] == pytest.approx((8.736e9,))
    assert got["latency_pdr90_forward_min"] == ("us", (10.0,))
    assert got["latency_pdr90_reverse_avg"] == ("us", (21.0,))
    assert got["latency_pdr10_reverse_max"] == ("us", (8.0,))
    assert got["latency_pdr0_forward_avg"] == ("us", (2.0,))
    # The generator's -1 (no samples) is no measurement.
    assert "latency_pdr50_reverse_min" not in got
    assert got["latency_pdr50_forward_max"] == ("us", (9.0,))
    # The LATENCY line after NDR is latency at the NDR rate, with the histogram's percentiles.
    assert got["latency_ndr_forward_avg"] == ("us", (2.0,))
    assert got["latency_ndr_reverse_min"] == ("us", (4.0,))
    assert got["latency_ndr_forward_p99"] == ("us", (30.0,))
    assert got["latency_pdr90_forward_p50"] == ("us", (20.0,))
    assert dict(test.attributes)["latency_pdr90_forward_hdrh"] == HISTOGRAM
    assert len(got) == 4 + (6 + 4) + (6 + 4) + 3 + 6 + 6


def test_current_cps_wording(tests_by_name: dict[str, TestResult]) -> None:
    got = _values(tests_by_name["64B-1c-ethip4-ip4base-cps-ndrpdr"])
    assert got == {"ndr": ("cps", (250000.0,)), "pdr": ("cps", (260000.5,))}


def test_legacy_wording_gives_lower_and_upper_bounds(tests_by_name: dict[str, TestResult]) -> None:
    got = _values(tests_by_name["64B-1c-ethip4-ip4base-legacy-ndrpdr"])
    bounds = {"ndr", "ndr_upper", "ndr_bandwidth", "pdr", "pdr_upper", "pdr_bandwidth"}
    latencies = {
        f"latency_{bound}_{direction}_{statistic}"
        for bound in ("ndr", "pdr")
        for direction in ("forward", "reverse")
        for statistic in ("min", "avg", "max")
    }
    assert set(got) == bounds | latencies
    assert got["latency_pdr_reverse_avg"] == ("us", (10.0,))
    assert got["ndr"] == ("pps", (1.5e6,))
    assert got["ndr_upper"] == ("pps", (2e6,))
    assert got["pdr"] == ("pps", (1.75e6,))
    assert got["pdr_upper"] == ("pps", (1800000.5,))
    assert got["pdr_bandwidth"][1] == pytest.approx((1.176e9,))
