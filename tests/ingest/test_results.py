"""The CSIT message conventions: every result form, and every malformed one."""

from __future__ import annotations

import pytest

from sphinxcontrib_trending.ingest.model import Measurement
from sphinxcontrib_trending.ingest.results import (
    make_test_id,
    parse_number_list,
    read_message,
    strip_tc_prefix,
    thread_core,
)


def test_mrr_trials() -> None:
    found = read_message("Maximum Receive Rate trial results in packets per second: [1.5, 2e6, 3]")
    assert found.measurements == (Measurement("mrr", "pps", (1.5, 2e6, 3.0)),)
    assert found.errors == ()


@pytest.mark.parametrize(
    "phrase",
    ["estimated connections per second", "Connections Per Second", "connections per second"],
)
def test_cps_trials(phrase: str) -> None:
    found = read_message(f"Maximum Receive Rate trial results in {phrase}: [10.0, 20.0]")
    assert found.measurements == (Measurement("cps", "cps", (10.0, 20.0)),)


def test_legacy_mrr_is_rx_per_second() -> None:
    found = read_message("MaxReceivedRate_Results [pkts/2sec]: tx 300, rx 250")
    assert found.measurements == (Measurement("mrr", "pps", (125.0,)),)


def test_ndr_and_pdr_lower_bounds() -> None:
    message = "NDR_LOWER: 1.5e6 pps (1 Gbps)\nNDR_UPPER: 2e6 pps\nPDR_LOWER: 1750000 pps"
    assert read_message(message).measurements == (
        Measurement("ndr", "pps", (1.5e6,)),
        Measurement("pdr", "pps", (1750000.0,)),
    )


@pytest.mark.parametrize(
    ("message", "complaint"),
    [
        ("trial results in packets per second: [1.0, abc, 3.0]", "'abc' is not a number"),
        ("trial results in packets per second: [1.0, 2.0", "unterminated"),
        ("trial results in packets per second: []", "empty"),
        ("trial results in packets per second: [1.0, nan]", "not finite"),
        ("trial results in packets per second: [1.0, inf]", "not finite"),
        ("trial results in packets per second: none", "expected [v1"),
        ("NDR_LOWER: fast pps", "malformed NDR_LOWER"),
        ("MaxReceivedRate_Results [pkts/0sec]: tx 1, rx 2", "bad legacy"),
    ],
)
def test_malformed_results_are_reported_not_guessed(message: str, complaint: str) -> None:
    found = read_message(message)
    assert found.measurements == ()
    assert len(found.errors) == 1 and complaint in found.errors[0]


def test_message_without_results() -> None:
    assert read_message("Test passed: functional check only") == read_message("")
    assert read_message("").measurements == () and read_message("").errors == ()


def test_test_id_strips_tc_prefixes_and_lowercases() -> None:
    long_name = "Tests.Vpp.Perf.Ip4.2N1L-10Ge2P1X710-Ethip4-Ip4Base-Mrr.tc01-64B-1c-Ethip4-Mrr"
    assert make_test_id(long_name) == (
        "tests.vpp.perf.ip4.2n1l-10ge2p1x710-ethip4-ip4base-mrr.64b-1c-ethip4-mrr"
    )
    assert strip_tc_prefix("TC12-imix-2t1c") == "imix-2t1c"
    assert strip_tc_prefix("etc01-x") == "etc01-x"


def test_thread_core_prefers_threads_and_cores() -> None:
    assert thread_core(("1C", "64B", "2t1c")) == "2T1C"
    assert thread_core(("MRR", "4C")) == "4C"
    assert thread_core(("MRR", "64B")) is None
    assert thread_core(("11T1CX",)) is None


def test_number_lists_of_the_table_formats() -> None:
    assert parse_number_list("1;2.5 3,4") == (1.0, 2.5, 3.0, 4.0)
    assert parse_number_list("[1, 2]") == (1.0, 2.0)
    with pytest.raises(ValueError, match="expected"):
        parse_number_list("1, 2", bracketed=True)
