"""Soak, reconf, host-stack and per-stream latency wordings from a real robot run.

Each test's keywords set the message the way CSIT's Robot libraries do
(``performance_display.robot``: ``Display result of soak search``, ``Display
Reconfig Test Message``, ``Display Single PPS Bound`` with its ``LATENCY``
line; ``hoststack.robot``: the test programs' JSON or VSAP summary), so the
output.xml is what Robot Framework itself writes for those messages.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from sphinxcontrib_trending.ingest.model import Dataset, TestResult
from tests.csit_robot import DISPLAY_KEYWORDS, DISPLAY_RESOURCE
from tests.ingest.conftest import load_paths
from tests.latency_data import hdrh_of
from tools.make_robot_archive import run_plain_robot

FORWARD = hdrh_of(*range(1, 101))
REVERSE = hdrh_of(7, 8, 9)
CORRUPT = "HISTFAAAACt4nJNpmSzMwMDAwwABzFCaEURcm7yEwf4DRECYCQjcmRKZjjIyAQCQtwYa"
IPERF3 = {
    "start": 0,
    "end": 30.00004,
    "seconds": 30.00004,
    "bytes": 35236364288,
    "bits_per_second": 9396312466.4,
    "retransmits": 42,
    "sender": True,
}
VPP_ECHO = (
    {"role": "client", "time": "5.0", "tx_data": 5000000000, "rx_data": 0},
    {"role": "server", "time": "3.0", "tx_data": 0, "rx_data": 5000000000},
)

SUITE = """\
*** Settings ***
Resource    csit_display.resource

*** Test Cases ***
tc01-64B-1c-ethip4-ip4base-soak
    [Tags]    SOAK    1C    64B
    Display Result Of Soak Search    12000000    500000

tc02-64B-1c-ethip4-ip4base-cps-soak
    [Tags]    SOAK    1C    64B
    Set Test Message    ${\\n}PLRsearch lower bound: 90000.5 CPS    append=yes
    Set Test Message    ${\\n}PLRsearch upper bound: 91000.5 CPS    append=yes

tc03-64B-1c-ethip4-ip4base-legacy-soak
    [Tags]    SOAK    1C    64B
    Set Test Message    PLRsearch lower bound:: 7000000.25 pps
    Set Test Message    ${\\n}PLRsearch upper bound:: 7100000.75 pps    append=yes

tc04-64B-1c-ethip4-ip4base-reconf
    [Tags]    RECONF    1C    64B
    Display Reconfig Test Message    1234    617000.0

tc05-64B-1c-eth-l2bdbasemaclrn-ndrpdr
    [Tags]    NDRPDR    1C    64B
    Display Single PPS Bound    NDR    12000000.0    8.064    1/5/100/${FORWARD}    7/8/9/${REVERSE}
    Display Single PPS Bound    PDR    12500000.0    8.4    2/6/90/    -1/-1/-1/

tc06-64B-1c-eth-l2bdbasemaclrn-corrupt-ndrpdr
    [Tags]    NDRPDR    1C    64B
    Display Single PPS Bound    NDR    11000000.0    7.392    1/5/100/${CORRUPT}    7/8/9/

tc07-1280B-1c-eth-ip4tcpbase-ldpreload-iperf3
    [Tags]    HOSTSTACK    LDPRELOAD    IPERF3
    Set Test Message    ${IPERF3}

tc08-1280B-1c-eth-ip4tcpbase-vppecho
    [Tags]    HOSTSTACK    VPPECHO
    Set Test Message    ${CLIENT}
    Set Test Message    ${SERVER}    append=True

tc09-0b-1c-ethip4tcphttp-ldp-nginx-cps
    [Tags]    LDP_NGINX    TCP_CPS
    Set Test Message    Transfer Rate: 1250.5 [Kbytes/sec]
    Set Test Message    ${\\n}Latency: 1.25 ms    append=yes
    Set Test Message    ${\\n}Connection cps rate:5678.9 per sec    append=yes
    Set Test Message    ${\\n}Total data transferred: 123456 bytes    append=yes
    Set Test Message    ${\\n}Completed requests: 100000    append=yes
    Set Test Message    ${\\n}Failed requests: 3    append=yes

*** Keywords ***
Display Result Of Soak Search
    [Arguments]    ${avg}    ${stdev}
    ${lower} =    Evaluate    ${avg} - ${stdev}
    ${upper} =    Evaluate    ${avg} + ${stdev}
    Display Single PPS Bound    PLRsearch lower bound    ${lower}    7.392
    Display Single PPS Bound    PLRsearch upper bound    ${upper}    8.064

Display Reconfig Test Message
    [Arguments]    ${packet_loss}    ${packet_rate}
    ${time_loss} =    Evaluate    ${packet_loss} / ${packet_rate}
    Set Test Message    Packets lost due to reconfig: ${packet_loss}
    Set Test Message    ${\\n}Implied time lost: ${time_loss}    append=yes
"""


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    output = tmp_path_factory.mktemp("wordings") / "output.xml"
    run_plain_robot(
        output,
        {"wordings.robot": SUITE, DISPLAY_RESOURCE: DISPLAY_KEYWORDS},
        end=datetime(2024, 5, 1, 2, tzinfo=timezone.utc),
        variables=[
            f"FORWARD:{FORWARD}",
            f"REVERSE:{REVERSE}",
            f"CORRUPT:{CORRUPT}",
            f"IPERF3:{json.dumps(IPERF3)}",
            f"CLIENT:{json.dumps(VPP_ECHO[0])}",
            f"SERVER:{json.dumps(VPP_ECHO[1])}",
        ],
    )
    return load_paths(output)


@pytest.fixture(scope="module")
def tests_by_name(dataset: Dataset) -> dict[str, TestResult]:
    (build,) = dataset.builds
    assert all(test.passed for test in build.tests)
    return {test.name: test for test in build.tests}


def _values(test: TestResult) -> dict[str, tuple[str, tuple[float, ...]]]:
    return {m.metric: (m.unit, m.values) for m in test.measurements}


def test_plrsearch_soak_bounds_current_wording(tests_by_name: dict[str, TestResult]) -> None:
    test = tests_by_name["64B-1c-ethip4-ip4base-soak"]
    assert "PLRsearch lower bound: 11500000 pps, 7.392 Gbps (initial)" in test.message
    assert _values(test) == {
        "soak_lower": ("pps", (11500000.0,)),
        "soak_upper": ("pps", (12500000.0,)),
    }


def test_plrsearch_soak_bounds_cps_and_legacy(tests_by_name: dict[str, TestResult]) -> None:
    assert _values(tests_by_name["64B-1c-ethip4-ip4base-cps-soak"]) == {
        "soak_lower": ("cps", (90000.5,)),
        "soak_upper": ("cps", (91000.5,)),
    }
    assert _values(tests_by_name["64B-1c-ethip4-ip4base-legacy-soak"]) == {
        "soak_lower": ("pps", (7000000.25,)),
        "soak_upper": ("pps", (7100000.75,)),
    }


def test_reconf_loss_and_implied_time_lost(tests_by_name: dict[str, TestResult]) -> None:
    got = _values(tests_by_name["64B-1c-ethip4-ip4base-reconf"])
    assert got["reconf_loss"] == ("packets", (1234.0,))
    assert got["reconf_time_lost"][0] == "s"
    assert got["reconf_time_lost"][1] == pytest.approx((1234 / 617000.0,))
    assert set(got) == {"reconf_loss", "reconf_time_lost"}


def test_latency_per_stream_by_bound_and_direction(tests_by_name: dict[str, TestResult]) -> None:
    test = tests_by_name["64B-1c-eth-l2bdbasemaclrn-ndrpdr"]
    got = _values(test)
    assert got["latency_ndr_forward_min"] == ("us", (1.0,))
    assert got["latency_ndr_forward_avg"] == ("us", (5.0,))
    assert got["latency_ndr_reverse_max"] == ("us", (9.0,))
    assert got["latency_pdr_forward_max"] == ("us", (90.0,))
    assert "latency_pdr_reverse_min" not in got  # -1: the stream had no samples
    # Percentiles decoded from the histograms the traffic generator sent.
    assert got["latency_ndr_forward_p50"] == ("us", (50.0,))
    assert got["latency_ndr_forward_p90"] == ("us", (90.0,))
    assert got["latency_ndr_forward_p99"] == ("us", (99.0,))
    assert got["latency_ndr_forward_p999"] == ("us", (100.0,))
    assert got["latency_ndr_reverse_p50"] == ("us", (8.0,))
    assert "latency_pdr_forward_p50" not in got  # no histogram on that line
    assert dict(test.attributes) == {
        "latency_ndr_forward_hdrh": FORWARD,
        "latency_ndr_reverse_hdrh": REVERSE,
    }


def test_corrupt_histogram_is_a_data_problem_and_the_rest_is_read(
    dataset: Dataset, tests_by_name: dict[str, TestResult]
) -> None:
    (problem,) = dataset.problems
    assert problem.subtype == "data"
    assert problem.origin.endswith("output.xml")
    assert "64B-1c-eth-l2bdbasemaclrn-corrupt-ndrpdr" in problem.message
    assert "corrupt HDR histogram" in problem.message
    got = _values(tests_by_name["64B-1c-eth-l2bdbasemaclrn-corrupt-ndrpdr"])
    assert got["ndr"] == ("pps", (11e6,))
    assert got["latency_ndr_forward_avg"] == ("us", (5.0,))
    assert got["latency_ndr_reverse_max"] == ("us", (9.0,))
    assert not any(metric.endswith(("_p50", "_p999")) for metric in got)


def test_iperf3_host_stack_result(tests_by_name: dict[str, TestResult]) -> None:
    got = _values(tests_by_name["1280B-1c-eth-ip4tcpbase-ldpreload-iperf3"])
    assert got == {
        "hoststack_bps": ("bps", (9396312466.4,)),
        "hoststack_duration": ("s", (30.00004,)),
        "hoststack_retransmits": ("packets", (42.0,)),
    }


def test_vpp_echo_host_stack_result(tests_by_name: dict[str, TestResult]) -> None:
    got = _values(tests_by_name["1280B-1c-eth-ip4tcpbase-vppecho"])
    # The client's bytes over the average of both programs' run times.
    assert got == {
        "hoststack_bps": ("bps", (5e9 * 8 / 4.0,)),
        "hoststack_duration": ("s", (4.0,)),
    }


def test_vsap_nginx_host_stack_result(tests_by_name: dict[str, TestResult]) -> None:
    got = _values(tests_by_name["0b-1c-ethip4tcphttp-ldp-nginx-cps"])
    assert got == {
        "hoststack_bps": ("bps", (1250.5 * 8e3,)),
        "hoststack_latency": ("ms", (1.25,)),
        "hoststack_rate": ("cps", (5678.9,)),
        "hoststack_completed_requests": ("requests", (100000.0,)),
        "hoststack_failed_requests": ("requests", (3.0,)),
    }
