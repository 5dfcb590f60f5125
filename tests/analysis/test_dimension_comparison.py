"""NIC against NIC, cores against cores: tests paired by all they share, trimmed as csit-dash."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sphinxcontrib_trending.analysis.comparison import Judging, Period
from sphinxcontrib_trending.analysis.dimension_comparison import compare_dimension, pair_name
from sphinxcontrib_trending.ingest.dimensions import rules_for
from sphinxcontrib_trending.ingest.model import Build
from tests import hand_built

XXV = "25ge2p1xxv710"
E810 = "100ge2p1e810cq"
SUITE = "tests.vpp.perf.ip4.2n1l-{nic}-avf-ethip4-ip4base-mrr"
CASE = "64b-{cores}-avf-ethip4-ip4base-mrr"


def _test(nic: str, level: float, cores: str = "2t1c", tag: str = "2T1C"):
    case = CASE.format(cores=cores)
    result = hand_built.result(case, level, thread_core=tag)
    return replace(
        result,
        test_id=f"{SUITE.format(nic=nic)}.{case}",
        suite=SUITE.format(nic=nic),
        tags=(*result.tags, f"NIC_{nic}"),
    )


def _builds(levels: list[tuple[float, float]], only_xxv: float | None = None) -> list[Build]:
    builds = []
    for number, (xxv, e810) in enumerate(levels, start=1):
        tests = [_test(XXV, xxv), _test(E810, e810)]
        if only_xxv is not None:
            alone = _test(XXV, only_xxv)
            tests.append(replace(alone, test_id=alone.test_id + "-alone", name="alone-mrr"))
        builds += hand_built.builds({}, [number])
        builds[-1] = replace(builds[-1], tests=tuple(tests))
    return builds


def _compare(builds: list[Build], dimension: str, a: str, b: str):
    return compare_dimension(
        Period("all", tuple(builds)),
        dimension,
        a,
        b,
        rules_for(),
        Judging("mrr", "s", "higher"),
    )


def test_tests_on_both_nics_pair_and_those_on_one_are_left_out() -> None:
    builds = _builds([(10e6, 20e6)] * 6, only_xxv=5e6)
    (row,) = _compare(builds, "nic", XXV, E810.upper())
    assert row.name == "2n-skx avf 64b 2t1c ethip4-ip4base-mrr"
    assert XXV not in row.name and E810 not in row.name
    assert row.a is not None and row.b is not None
    assert (row.a.mean, row.b.mean) == pytest.approx((10e6, 20e6))
    assert row.change == pytest.approx(1.0)
    assert [report.result for report in row.reports] == ["Optimization"]
    assert row.key.key.endswith(
        f"2n1l-{XXV}-avf-ethip4-ip4base-mrr.64b-2t1c-avf-ethip4-ip4base-mrr"
    )


def test_a_broken_run_is_trimmed_from_the_statistics_but_kept_in_the_samples() -> None:
    levels = [(10e6, 20e6)] * 8
    levels[3] = (10e6, 0.1e6)  # one broken E810 run
    (row,) = _compare(_builds(levels), "nic", XXV, E810)
    assert row.b is not None and row.b.mean == pytest.approx(20e6)
    assert row.b.runs == 8  # runs measured; the statistics are over the kept observations
    assert len(row.samples_b) == 8 and min(row.samples_b) == pytest.approx(0.1e6)


def test_cores_pair_by_the_case_names_slot_as_csit_dash_reads_it() -> None:
    """An ndrpdr case says ``1c`` where its tag says ``2T1C``: the slot counts."""
    builds = hand_built.builds({}, [1, 2, 3])
    builds = [
        replace(
            build,
            tests=(
                _test(XXV, 10e6, cores="1c", tag="2T1C"),
                _test(XXV, 19e6, cores="2c", tag="4T2C"),
            ),
        )
        for build in builds
    ]
    (row,) = _compare(builds, "cores", "1c", "2C")
    assert row.name == f"2n-skx {XXV} avf 64b ethip4-ip4base-mrr"
    assert row.change == pytest.approx(0.9)


def test_an_unknown_dimension_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown dimension 'colour'"):
        _compare([], "colour", "a", "b")


def test_the_pair_name_leaves_out_only_the_compared_value() -> None:
    test = _test(XXV, 1.0)
    dimensions = rules_for().derive(test, "2n-skx")
    assert pair_name(test, dimensions, "frame_size") == f"2n-skx {XXV} avf 2t1c ethip4-ip4base-mrr"
