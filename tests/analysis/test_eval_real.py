"""benchmarks/eval_real.py: settings reach the classifier, excursions are counted right."""

from __future__ import annotations

import importlib.util
import lzma
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location("eval_real", ROOT / "benchmarks" / "eval_real.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["eval_real"] = module
    spec.loader.exec_module(module)
    return module


eval_real = _load()


def test_a_setting_splits_into_classify_arguments_and_policy_fields() -> None:
    arguments, policy = eval_real.parse_setting(
        "sbps=4, search=jumpavg,min_confidence=0.95,discount_serial_correlation=true"
    )
    assert arguments == {"sbps": 4, "search": "jumpavg"}
    assert policy == {"min_confidence": 0.95, "discount_serial_correlation": True}


def test_an_unknown_setting_is_refused_with_the_known_keys() -> None:
    with pytest.raises(SystemExit, match=r"unknown key 'colour'.*min_confidence"):
        eval_real.parse_setting("colour=red")


def test_a_setting_changes_what_is_found() -> None:
    values = [100.0] * 20 + [101.0] * 20
    assert eval_real.project("")(values) == [20]
    assert eval_real.project("sbps=2")(values) == []


def test_one_run_groups_mark_the_changes_around_them() -> None:
    # groups [0,5) [5,6) [6,10) [10,11): 5 and 6 close/open the excursion, 10 opens the last
    assert eval_real.one_run_changes([5, 6, 10], 11) == 3
    assert eval_real.one_run_changes([1, 5], 10) == 1  # a first group of one run
    assert eval_real.one_run_changes([4], 10) == 0


def test_asv_flags_land_on_the_first_run_after_the_step(tmp_path) -> None:
    folder = tmp_path / "perf" / "pandas_asv"
    folder.mkdir(parents=True)
    (folder / "revisions.csv").write_text(
        "revision,commit,date_ms\n" + "".join(f"{r},c{r},{1000 + r}\n" for r in range(10))
    )
    rows = "".join(f"bench.time_x,0,,{r},{1.0 if r < 6 else 2.0}\n" for r in range(10))
    with lzma.open(folder / "series.csv.xz", "wt") as handle:
        handle.write("benchmark,param_index,params,revision,value\n" + rows)
    (folder / "asv_regressions.json").write_text(
        '{"regressions": [["bench.time_x", "g", {}, 0, 2.0, 1.0, [[5, 6, 1.0, 2.0]]]]}'
    )
    (series,) = eval_real.pandas(tmp_path)
    assert series.flags == [6]
    assert series.values[6] == 2.0
