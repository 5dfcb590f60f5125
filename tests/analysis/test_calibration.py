"""The spread calibration: a resolution from the series, for data that is not CSIT's.

The seed's unit (1/8191 of the largest value) makes a series' grouping depend
on where zero lies; these tests pin the spread calibration's independence of
scale and offset, which source gets which calibration, and that CSIT's own
formats keep the seed's grouping untouched.
"""

from __future__ import annotations

import importlib.util
import random
import statistics
import sys
from pathlib import Path

import pytest

from sphinxcontrib_trending.analysis import AnomalyPolicy, classify
from sphinxcontrib_trending.analysis.calibration import (
    SPREAD_POLICY,
    calibrated_policy,
    calibrated_unit,
    resolve_calibration,
    spread_unit,
)
from sphinxcontrib_trending.judging import trend_options
from sphinxcontrib_trending.settings import validate

ROOT = Path(__file__).resolve().parents[2]


def _steps(seed: int = 7) -> list[float]:
    rng = random.Random(seed)
    return [rng.gauss(level, 1.0) for level in (50.0, 53.0, 49.0) for _ in range(30)]


def _starts(values: list[float], calibration: str) -> list[int]:
    result = classify(values, unit=calibrated_unit(values, calibration))
    return [group.start for group in result.groups]


def test_the_spread_unit_is_a_quarter_of_the_run_averages_stdev() -> None:
    values = [1.0, 3.0, 5.0, 7.0]
    assert spread_unit(values) == pytest.approx(statistics.pstdev(values) / 4)
    assert spread_unit([[1.0, 3.0], [5.0, 7.0]]) == pytest.approx(0.5)  # averages 2 and 6


@pytest.mark.parametrize("runs", [[], [4.0], [2.0, 2.0, 2.0], [None, 5.0]])
def test_nothing_to_spread_leaves_the_unit_to_sbps(runs: list[float | None]) -> None:
    assert spread_unit(runs) is None


def test_the_seed_calibration_leaves_the_unit_to_sbps() -> None:
    assert calibrated_unit(_steps(), "seed") is None


def test_the_spread_grouping_ignores_the_scale() -> None:
    values = _steps()
    assert _starts([1e6 * value for value in values], "spread") == _starts(values, "spread")
    assert _starts(values, "spread") == [0, 30, 60]


def test_a_level_far_from_zero_hides_steps_from_the_seeds_unit_not_the_spreads() -> None:
    """The seed's unit, 1/8191 of 20,050, is 2.4: steps of 3 in noise of 1 fall below it."""
    moved = [2e4 + value for value in _steps()]
    assert _starts(moved, "seed") == [0]
    assert _starts(moved, "spread") == [0, 30, 60]


@pytest.mark.parametrize(
    ("setting", "source_format", "sbps", "expected"),
    [
        ("auto", "robot", None, "seed"),
        ("auto", "csit-json", None, "seed"),
        ("auto", "parquet", None, "seed"),
        ("auto", "asv", None, "spread"),
        ("auto", "csv", None, "spread"),
        ("auto", "csv", 8.0, "seed"),
        ("seed", "asv", None, "seed"),
        ("spread", "robot", None, "spread"),
    ],
)
def test_auto_keeps_the_seed_for_csit_formats_and_for_an_explicit_sbps(
    setting: str, source_format: str, sbps: float | None, expected: str
) -> None:
    assert resolve_calibration(setting, source_format, sbps) == expected


def test_an_unknown_calibration_is_refused() -> None:
    with pytest.raises(ValueError, match="calibration must be one of"):
        resolve_calibration("fine", "csv")


def test_the_spread_policy_applies_only_where_none_is_configured() -> None:
    mine = AnomalyPolicy(min_confidence=0.5)
    assert calibrated_policy(AnomalyPolicy(), "spread") == SPREAD_POLICY
    assert calibrated_policy(mine, "spread") == mine
    assert calibrated_policy(AnomalyPolicy(), "seed") == AnomalyPolicy()


def _options(conf: dict[str, object], source: dict[str, object]):
    settings, issues = validate({"trending_sources": {"s": source}, **conf}, Path("/site"))
    assert issues == []
    return trend_options(settings, settings.sources["s"], "value")


def test_a_csv_source_gets_the_spread_calibration_and_a_robot_source_the_seeds() -> None:
    spread = _options({}, {"paths": "x.csv", "format": "csv"})
    seed = _options({}, {"paths": "x.xml"})
    assert (spread.calibration, spread.policy) == ("spread", SPREAD_POLICY)
    assert (seed.calibration, seed.policy) == ("seed", AnomalyPolicy())
    assert spread.grouping.calibration == "spread"


def test_the_configured_calibration_and_policy_win() -> None:
    policy = {"min_confidence": 0.8}
    options = _options(
        {"trending_calibration": "seed", "trending_anomaly_policy": policy},
        {"paths": "x.csv", "format": "csv"},
    )
    assert (options.calibration, options.policy) == ("seed", AnomalyPolicy(min_confidence=0.8))
    options = _options({"trending_anomaly_policy": policy}, {"paths": "x.csv", "format": "csv"})
    assert (options.calibration, options.policy.min_confidence) == ("spread", 0.8)


def test_a_bad_calibration_setting_is_an_issue_and_falls_back_to_auto() -> None:
    settings, issues = validate({"trending_calibration": "fine"}, Path("/site"))
    assert [issue.key for issue in issues] == ["trending_calibration"]
    assert settings.calibration == "auto"


def _eval_tcpd():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location("eval_tcpd", ROOT / "benchmarks" / "eval_tcpd.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.shared_data("tcpd")
def test_the_default_for_other_data_scores_at_least_binseg_on_tcpd() -> None:
    """The issue's bar: the default beats binseg's published default on both scores."""
    evaluation = _eval_tcpd()
    data = ROOT.parent / "shared" / "data"
    datasets = evaluation.tcpd_datasets(data)
    published = evaluation.published_averages(data, [dataset.name for dataset in datasets])
    label = "this project, default"
    f1, cover = evaluation.mean_scores({label: evaluation.DETECTORS[label]}, datasets)[label]
    assert f1 >= published["binseg"][0] and cover >= published["binseg"][1]
