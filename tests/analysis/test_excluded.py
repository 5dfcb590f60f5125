"""Curated runs: the file's entries, its located warnings, and the grouping without them."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from sphinxcontrib_trending.analysis import history as history_model
from sphinxcontrib_trending.analysis.classify import classify
from sphinxcontrib_trending.analysis.excluded import (
    ExclusionsError,
    load_exclusions,
    parse_exclusions,
)
from sphinxcontrib_trending.analysis.summary import TrendOptions, run_samples, summarize
from sphinxcontrib_trending.analysis.test_run import Run

START = datetime(2024, 1, 1, tzinfo=timezone.utc)
END = START + timedelta(days=30)
GOOD = """
[[run]]
test = "*ip4base*"
build = "job/3"
reason = "testbed rebooted mid-run"

[[run]]
source = "other"
version = "24.02*"
reason = "debug build"
"""


def _run(number: int, value: float, version: str = "v", job: str = "job") -> Run:
    return Run(
        START + timedelta(days=number),
        job,
        str(number),
        version,
        "tb",
        "PASS",
        "",
        (value,),
        value,
        0.0,
    )


def _history(values: list[float], test_id: str = "64b-ethip4-ip4base-mrr"):
    runs = tuple(_run(number, value) for number, value in enumerate(values, 1))
    return history_model.TestHistory(
        f"tb/{test_id}", test_id, test_id, "s", (), "tb", None, "mrr", "pps", runs
    )


def test_entries_name_runs_by_test_and_build_or_by_source_and_version() -> None:
    exclusions = parse_exclusions(GOOD, "excluded.toml")
    assert exclusions.warnings == ()
    first, second = exclusions.entries
    assert (first.origin, first.job, first.build) == ("excluded.toml:2", "job", "3")
    assert (second.origin, second.test, second.source) == ("excluded.toml:7", "*", "other")
    runs = [_run(2, 1.0), _run(3, 1.0), _run(3, 1.0, job="other-job")]
    assert list(exclusions.in_history("64B-ETHIP4-IP4BASE-MRR", runs)) == [1]
    assert exclusions.in_history("64b-eth-l2xcbase-mrr", runs) == {}
    # the source-wide entry concerns its own source only
    assert len(exclusions.for_source("csit").entries) == 1
    by_version = exclusions.for_source("other").in_history("x", [_run(1, 1.0, "24.02-rc1")])
    assert by_version[0].reason == "debug build"


@pytest.mark.parametrize(
    ("entry", "complaint"),
    [
        ('test = "*"\nbuild = "1"', "missing required key 'reason'"),
        ('test = "*"\nreason = "r"', "give 'build', 'version' or both"),
        ('build = "1"\nreason = "r"', "give 'test', 'source' or both"),
        ('test = "*"\nbuild = 1\nreason = "r"', "'build' must be a non-empty string"),
        ('test = "*"\nbuild = "1"\nreason = "r"\nwhy = "x"', "unknown key 'why'"),
    ],
)
def test_a_bad_entry_warns_with_its_file_and_line_and_the_rest_is_read(
    entry: str, complaint: str
) -> None:
    text = f"{GOOD}\n[[run]]\n{entry}\n"
    exclusions = parse_exclusions(text, "excluded.toml")
    assert len(exclusions.entries) == 2
    (warning,) = exclusions.warnings
    assert warning.startswith("excluded.toml:12: excluded run 3 ignored: ")
    assert complaint in warning


def test_a_file_that_is_not_toml_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "excluded.toml"
    path.write_text("[[run]\n")
    with pytest.raises(ExclusionsError, match=r"excluded\.toml: invalid TOML"):
        load_exclusions(path)
    with pytest.raises(ExclusionsError, match="cannot read excluded runs"):
        load_exclusions(tmp_path / "absent.toml")


def test_excluded_runs_are_part_of_no_group_and_open_no_change() -> None:
    values = [10.0, 10.1, 9.9, 10.0, 5.0, 5.1, 10.0, 10.1, 9.9, 10.0]
    history = _history(values)
    bad = parse_exclusions(
        '[[run]]\ntest = "*"\nbuild = "5"\nreason = "r"\n'
        '[[run]]\ntest = "*"\nbuild = "6"\nreason = "r"\n',
        "f",
    )
    plain = TrendOptions(outlier_runs=0)
    curated = TrendOptions(outlier_runs=0, exclusions=bad)
    assert len(summarize(history, plain, END).result.groups) == 3
    trend = summarize(history, curated, END)
    assert len(trend.result.groups) == 1
    assert set(trend.result.missing) == {4, 5} and set(trend.excluded) == {4, 5}
    assert run_samples(history, "runs", bad)[3:7] == [10.0, None, None, 10.0]
    assert classify(run_samples(history, "trials", bad)).missing == (4, 5)
