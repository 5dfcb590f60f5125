"""Folding identical failures across NICs, frame sizes and cores."""

from __future__ import annotations

from dataclasses import replace

from sphinxcontrib_trending.analysis.folding import fold_failures, name_dimensions
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TrendOptions
from sphinxcontrib_trending.analysis.verdicts import Reason, Verdict, judge_latest
from tests.hand_built import builds, failing_last

DOWN = "No traffic received from TG {address} at 2026-01-05 06:0{minute}:00"
NAMES = (
    "64b-1t1c-ethip4-ip4base-mrr",
    "64b-2t1c-ethip4-ip4base-mrr",
    "imix-1t1c-ethip4-ip4base-mrr",
    "64b-1t1c-eth-l2xcbase-mrr",
)


def _failed(testbed: str, messages: dict[str, str]) -> list[Verdict]:
    data = failing_last(NAMES, messages, testbed=testbed)
    verdicts = judge_latest("mrr", histories(data, "mrr", keep_failing=True), data, TrendOptions())
    assert all(verdict.reason is Reason.FAILED for verdict in verdicts)
    return verdicts


def test_same_masked_failure_across_frame_sizes_and_cores_folds() -> None:
    messages = {
        name: DOWN.format(address=f"10.30.51.{40 + k}", minute=k) for k, name in enumerate(NAMES)
    }
    messages["64b-1t1c-eth-l2xcbase-mrr"] = "Interface down"
    folded = fold_failures(_failed("2n-skx", messages))
    assert [(f.name, f.count, f.spans) for f in folded] == [  # in the verdicts' order
        ("64b-1t1c-eth-l2xcbase-mrr", 1, (("frame_size", ("64b",)), ("cores", ("1t1c",)))),
        (
            "ethip4-ip4base-mrr",
            3,
            (("frame_size", ("64b", "imix")), ("cores", ("1t1c", "2t1c"))),
        ),
    ]
    assert folded[1].message == "No traffic received from TG <IPv4> at <TIME>"


def test_other_messages_and_testbeds_stay_apart() -> None:
    messages = dict.fromkeys(NAMES, "Interface down")
    messages["64b-2t1c-ethip4-ip4base-mrr"] = "Received 0 packets"
    verdicts = _failed("2n-skx", messages) + _failed("3n-icx", messages)
    folded = fold_failures(verdicts)
    summary = sorted((f.verdicts[0].history.testbed, f.name, f.count) for f in folded)
    assert summary == [
        ("2n-skx", "64b-1t1c-eth-l2xcbase-mrr", 1),
        ("2n-skx", "64b-2t1c-ethip4-ip4base-mrr", 1),
        ("2n-skx", "ethip4-ip4base-mrr", 2),
        ("3n-icx", "64b-1t1c-eth-l2xcbase-mrr", 1),
        ("3n-icx", "64b-2t1c-ethip4-ip4base-mrr", 1),
        ("3n-icx", "ethip4-ip4base-mrr", 2),
    ]


def test_dimensions_from_the_name_and_the_suite() -> None:
    (history, *_) = histories(builds({"64b-2t1c-ethip4-ip4base-ndrpdr": lambda n: 1e6}, [1]), "mrr")
    csit = replace(history, suite="tests.vpp.perf.ip4.2n1l-10ge2p1x710-ethip4-ip4base-ndrpdr")
    assert name_dimensions(csit) == {"nic": "10ge2p1x710", "frame_size": "64b", "cores": "2t1c"}
    plain = replace(history, name="throughput", suite="bench")
    assert name_dimensions(plain) == {"nic": None, "frame_size": None, "cores": None}


def test_a_richer_dimension_source_can_replace_the_local_rule() -> None:
    messages = dict.fromkeys(NAMES, "Interface down")
    verdicts = _failed("2n-skx", messages)
    folded = fold_failures(verdicts, dimensions_of=lambda history: {"nic": "e810cq"})
    assert sorted((f.name, f.count) for f in folded) == sorted((name, 1) for name in NAMES)
    assert folded[0].spans == (("nic", ("e810cq",)),)


def test_dimension_values_match_name_tokens_whatever_their_case() -> None:
    messages = dict.fromkeys(NAMES, "Interface down")
    verdicts = _failed("2n-skx", messages)

    def from_tags(history):
        frame, cores = history.name.split("-")[:2]
        return {"frame_size": frame.upper(), "cores": cores.upper()}

    folded = fold_failures(verdicts, dimensions_of=from_tags)
    assert sorted((f.name, f.count) for f in folded) == [
        ("64b-1t1c-eth-l2xcbase-mrr", 1),
        ("ethip4-ip4base-mrr", 3),
    ]
