"""The change-point metrics reproduce the TCPD benchmark's published scores."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"


def _load_metrics():
    spec = importlib.util.spec_from_file_location(
        "cpd_metrics", ROOT / "benchmarks" / "cpd_metrics.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


metrics = _load_metrics()


def test_f1_on_a_worked_example() -> None:
    annotations = {"a": [10], "b": [20]}
    # union {0, 10, 20}: 0 and 10 (by 11) are found -> precision 2/3 of {0, 11, 50};
    # recall: a finds 2/2, b finds 1/2 (20 is 9 from 11) -> 3/4.
    precision, recall = 2 / 3, 3 / 4
    expected = 2 * precision * recall / (precision + recall)
    assert metrics.f1_score(annotations, [11, 50]) == pytest.approx(expected)


def test_f1_margin_is_inclusive_and_each_truth_takes_one_prediction() -> None:
    assert metrics.f1_score({"a": [10]}, [15]) == pytest.approx(1.0)
    assert metrics.f1_score({"a": [10]}, [16]) == pytest.approx(2 * 0.5 * 0.5 / 1.0)
    # two predictions near one truth: one is a false positive
    assert metrics.f1_score({"a": [10]}, [9, 11]) == pytest.approx(2 * (2 / 3) * 1 / (5 / 3))


def test_covering_on_a_worked_example() -> None:
    annotations = {"a": [10], "b": [20]}
    # predicted segments [0, 11), [11, 50), [50, 60)
    cover_a = (10 * 10 / 11 + 50 * 39 / 50) / 60
    cover_b = (20 * 11 / 20 + 40 * 30 / 49) / 60
    assert metrics.covering(annotations, [11, 50], 60) == pytest.approx((cover_a + cover_b) / 2)


def test_segments_ignore_points_outside_the_series() -> None:
    assert metrics.segments([0, 5, 5, 12, 3], 10) == [(0, 3), (3, 5), (5, 10)]
    assert metrics.covering({"a": [4]}, [4], 8) == pytest.approx(1.0)


def _datasets() -> list[str]:
    if not (DATA / "tcpd").is_dir():
        return []
    return sorted(p.name for p in (DATA / "tcpd").iterdir() if (p / "annotations.json").exists())


@pytest.mark.shared_data("tcpd")
@pytest.mark.parametrize("name", _datasets() or ["<no data>"])
def test_zero_method_reproduces_published_default_scores(name: str) -> None:
    """The "zero" method predicts no change point (only index 0).

    The published floats were summed over annotators in an order we cannot
    recover, so they agree to the last bit or one rounding step (2.2e-16);
    1e-12 leaves room for that and nothing else.
    """
    scores = DATA / "tcpd_results" / "scores"
    published_f1 = json.loads((scores / "default_f1_scores.json").read_text())[name]["zero"]
    published_cover = json.loads((scores / "default_cover_scores.json").read_text())[name]["zero"]
    folder = DATA / "tcpd" / name
    annotations = json.loads((folder / "annotations.json").read_text())
    length = json.loads((folder / f"{name}.json").read_text())["n_obs"]
    assert metrics.f1_score(annotations, []) == pytest.approx(published_f1, rel=0, abs=1e-12)
    assert metrics.covering(annotations, [], length) == pytest.approx(
        published_cover, rel=0, abs=1e-12
    )


@pytest.mark.shared_data("tcpd")
def test_zero_method_f1_for_series_not_shipped() -> None:
    """annotations_all.json also covers series not redistributed; F1 needs no series."""
    every = json.loads((DATA / "tcpd" / "annotations_all.json").read_text())
    scores = DATA / "tcpd_results" / "scores" / "default_f1_scores.json"
    published = json.loads(scores.read_text())
    missing = sorted(set(every) - set(_datasets()))
    assert missing, "expected some annotated series without local data"
    for name in missing:
        assert metrics.f1_score(every[name], []) == pytest.approx(
            published[name]["zero"], rel=0, abs=1e-12
        ), name
