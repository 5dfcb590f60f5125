"""Rates scaled to a reference CPU frequency per testbed; everything else as measured."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from sphinxcontrib_trending.analysis.normalisation import FrequencyNorm, is_rate, normalise_builds
from sphinxcontrib_trending.conf import checks
from sphinxcontrib_trending.conf.issues import Checker, Invalid
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult

WHEN = datetime(2026, 1, 1, tzinfo=timezone.utc)
# The reference's own numbers: NORM_FREQUENCY 2.0 GHz, 2n-icx at 2.6, 3n-alt at 3.0.
NORM = FrequencyNorm(2.0, (("2n-icx", 2.6), ("3n-alt", 3.0)))


def _build(testbed: str | None) -> Build:
    test = TestResult(
        "s.t",
        "t",
        "s",
        (),
        "PASS",
        None,
        "",
        (
            Measurement("mrr", "pps", (13e6, 26e6)),
            Measurement("ndr_bandwidth", "Gbps", (52.0,)),
            Measurement("latency_pdr50_forward_avg", "us", (10.0,)),
            Measurement("reconf_time_lost", "s", (0.5,)),
        ),
    )
    return Build("job", "1", WHEN, None, testbed, "o", (test,))


def _values(build: Build) -> dict[str, tuple[float, ...]]:
    return {m.metric: m.values for m in build.tests[0].measurements}


def test_rates_scale_by_reference_over_testbed_frequency() -> None:
    (icx, alt), unknown = normalise_builds([_build("2n-icx"), _build("3n-alt")], NORM)
    assert unknown == []
    assert _values(icx)["mrr"] == pytest.approx((10e6, 20e6))  # x 2.0 / 2.6
    assert _values(icx)["ndr_bandwidth"] == pytest.approx((40.0,))
    assert _values(alt)["mrr"] == pytest.approx((13e6 * 2 / 3, 26e6 * 2 / 3))
    # latency and time lost do not scale with the clock alone
    assert _values(icx)["latency_pdr50_forward_avg"] == (10.0,)
    assert _values(icx)["reconf_time_lost"] == (0.5,)


def test_a_testbed_without_frequency_is_kept_and_named() -> None:
    (kept, bare), unknown = normalise_builds([_build("2n-zn2"), _build(None)], NORM)
    assert _values(kept)["mrr"] == (13e6, 26e6) and _values(bare)["mrr"] == (13e6, 26e6)
    assert unknown == ["2n-zn2", "no testbed"]


def test_rate_units_and_label() -> None:
    assert [is_rate(unit) for unit in ("pps", "Gbps", "cps", "rps", "us", "s", "packets")] == [
        True,
        True,
        True,
        True,
        False,
        False,
        False,
    ]
    assert NORM.label == "normalised to 2 GHz"
    assert NORM.factor("3n-alt") == pytest.approx(2 / 3) and NORM.factor(None) is None


def test_the_setting_is_checked(tmp_path) -> None:
    checker = Checker(tmp_path)
    value = {"reference": 2, "testbeds": {"2n-icx": 2.6}}
    assert checks.norm_frequency(value, "k", checker) == FrequencyNorm(2.0, (("2n-icx", 2.6),))
    assert checks.norm_frequency(None, "k", checker) is None
    for bad, complaint in (
        ({"reference": 2, "testbeds": {}}, "non-empty dict"),
        ({"reference": 0, "testbeds": {"a": 1}}, "'reference': expected a positive"),
        ({"reference": 2, "testbeds": {"a": "fast"}}, "'a': expected a frequency in GHz"),
        ({"reference": 2, "testbeds": {"a": 1}, "x": 1}, "unknown key(s) 'x'"),
    ):
        with pytest.raises(Invalid, match=complaint.replace("(", r"\(").replace(")", r"\)")):
            checks.norm_frequency(bad, "k", checker)
