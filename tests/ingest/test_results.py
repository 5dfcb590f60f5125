"""The CSIT message conventions: every result form, and every malformed one."""

from __future__ import annotations

import pytest

from sphinxcontrib_trending.ingest.metrics import METRICS
from sphinxcontrib_trending.ingest.model import Measurement
from sphinxcontrib_trending.ingest.results import (
    make_test_id,
    parse_number_list,
    read_message,
    strip_tc_prefix,
    thread_core,
)
from tests.latency_data import hdrh_of

HISTOGRAM = hdrh_of(1, 2, 2, 3)


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


def test_legacy_ndr_and_pdr_bounds() -> None:
    message = (
        "NDR_LOWER: 1.5e6 pps, 1.008 Gbps (initial)\n"
        "LATENCY usec [min/avg/max]: ['5/9/20', '6/10/21']\n"
        "NDR_UPPER: 2e6 pps, 1.344 Gbps (initial)\n"
        "PDR_LOWER: 1750000 pps (1 Gbps)\n"
        "PDR_UPPER: 1800000.5 pps"
    )
    found = read_message(message)
    assert found.errors == ()
    assert found.measurements == (
        Measurement("ndr", "pps", (1.5e6,)),
        Measurement("ndr_bandwidth", "bps", (1.008e9,)),
        *(
            Measurement(f"latency_ndr_{direction}_{statistic}", "us", (value,))
            for direction, values in (("forward", (5.0, 9.0, 20.0)), ("reverse", (6.0, 10.0, 21.0)))
            for statistic, value in zip(("min", "avg", "max"), values, strict=True)
        ),
        Measurement("ndr_upper", "pps", (2e6,)),
        Measurement("pdr", "pps", (1750000.0,)),
        Measurement("pdr_upper", "pps", (1800000.5,)),
    )


def test_current_ndr_and_pdr_with_bandwidth() -> None:
    # As CSIT's "Display Single PPS Bound" appends it: "pps," then " ... Gbps (initial)".
    message = (
        "NDR: 12345678.9 pps, 8.296 Gbps (initial)\n"
        f"LATENCY [min/avg/max/hdrh] per stream: ['1/2/3/{HISTOGRAM}', '4/5/6/']\n"
        "PDR: 13000000.0 pps, 8.736 Gbps (initial)"
    )
    found = read_message(message)
    assert found.errors == ()
    bounds = [m for m in found.measurements if not m.metric.startswith("latency_")]
    assert [(m.metric, m.unit) for m in bounds] == [
        ("ndr", "pps"),
        ("ndr_bandwidth", "bps"),
        ("pdr", "pps"),
        ("pdr_bandwidth", "bps"),
    ]
    values = [m.values[0] for m in bounds]
    assert values == pytest.approx([12345678.9, 8.296e9, 13e6, 8.736e9])
    latency = {m.metric: m.values for m in found.measurements if m.metric.startswith("latency_")}
    assert latency["latency_ndr_forward_avg"] == (2.0,)
    assert latency["latency_ndr_reverse_max"] == (6.0,)
    assert latency["latency_ndr_forward_p50"] == (2.0,)
    assert "latency_ndr_reverse_p50" not in latency  # that stream has no histogram
    assert found.attributes == (("latency_ndr_forward_hdrh", HISTOGRAM),)


def test_current_cps_bounds_keep_their_unit() -> None:
    found = read_message("NDR: 250000.0 CPS\nPDR: 260000.5 CPS")
    assert found.measurements == (
        Measurement("ndr", "cps", (250000.0,)),
        Measurement("pdr", "cps", (260000.5,)),
    )


def test_latency_at_fractions_of_pdr_per_direction_and_statistic() -> None:
    message = (
        "PDR: 1e7 pps, 6.72 Gbps (initial)\n"
        f"Latency at 90% PDR: ['10/20/30/{HISTOGRAM}', '11/21/31/']\n"
        "Latency at 50% PDR: ['7/8/9/', '-1/-1/-1/']\n"
        "Latency at 10% NDR: ['1/1/1/', '1/1/1/']"
    )
    found = read_message(message)
    assert found.errors == ()
    got = {m.metric: (m.unit, m.values) for m in found.measurements}
    assert set(got) == {
        "pdr",
        "pdr_bandwidth",
        *(f"latency_pdr90_{d}_{s}" for d in ("forward", "reverse") for s in ("min", "avg", "max")),
        *(f"latency_pdr90_forward_{p}" for p in ("p50", "p90", "p99", "p999")),
        *(f"latency_pdr50_forward_{s}" for s in ("min", "avg", "max")),
    }
    assert got["latency_pdr90_forward_min"] == ("us", (10.0,))
    assert got["latency_pdr90_forward_avg"] == ("us", (20.0,))
    assert got["latency_pdr90_reverse_max"] == ("us", (31.0,))
    assert got["latency_pdr50_forward_avg"] == ("us", (8.0,))


def test_older_zero_load_latency_wording() -> None:
    found = read_message("Latency at 0%: ['3/4/5/', '6/7/8/']")
    assert found.measurements[0] == Measurement("latency_pdr0_forward_min", "us", (3.0,))
    assert found.measurements[-1] == Measurement("latency_pdr0_reverse_max", "us", (8.0,))
    assert len(found.measurements) == 6


def test_every_produced_metric_is_in_the_metric_table() -> None:
    message = (
        "NDR_LOWER: 1 pps, 1 Gbps\nNDR_UPPER: 2 pps, 2 Gbps\nPDR_LOWER: 1 pps, 1 Gbps\n"
        "PDR_UPPER: 2 pps\nNDR: 1 pps, 1 Gbps\nPDR: 1 cps\n"
        + "\n".join(f"Latency at {load}% PDR: ['1/2/3/', '4/5/6/']" for load in (90, 50, 10, 0))
    )
    found = read_message(message)
    assert found.errors == ()
    metrics = {m.metric for m in found.measurements}
    assert len(metrics) == 6 + 4 * 6
    assert metrics <= set(METRICS)


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
        ("PDR_UPPER: inf pps", "malformed PDR_UPPER"),
        ("NDR: 1e6 pps, lots Gbps (initial)", "malformed NDR value"),
        ("Latency at 50% PDR: ['1/x/3/', '1/2/3/']", "malformed latency at 50% PDR"),
        ("Latency at 90% PDR: ['1/2/', '1/2/3/']", "not min/avg/max"),
        ("Latency at 10% PDR: [1/2/3]", "no 'min/avg/max' stream"),
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
