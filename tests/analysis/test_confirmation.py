"""A regression seen in one run is to be confirmed: the first later run of its DUT
version confirms or dismisses it; runs of other versions cannot."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from sphinxcontrib_trending.analysis import history as history_model
from sphinxcontrib_trending.analysis.summary import TrendOptions
from sphinxcontrib_trending.analysis.test_run import Run
from sphinxcontrib_trending.analysis.verdicts import Reason, Verdict, judge_every_build, waive
from sphinxcontrib_trending.ingest.model import Build

START = datetime(2024, 1, 1, tzinfo=timezone.utc)
LEVEL = [10.0, 10.1, 9.9, 10.05, 9.95, 10.0, 10.1, 9.9, 10.0, 10.05]
RERUN = [*"abcdefghij", "k", "k"]
"""Versions where run 12 re-runs run 11's DUT version."""


def _history(values: list[float], versions: list[str] | None = None) -> history_model.TestHistory:
    versions = versions or [f"v{number}" for number in range(len(values))]
    runs = tuple(
        Run(
            START + timedelta(days=number),
            "job",
            str(number + 1),
            versions[number],
            "tb",
            "PASS",
            "",
            (value,),
            value,
            0.0,
        )
        for number, value in enumerate(values)
    )
    return history_model.TestHistory("tb/t", "t", "t", "s", (), "tb", None, "mrr", "pps", runs)


def _verdicts(history: history_model.TestHistory, **options: object) -> dict[str, Verdict]:
    builds = [Build("job", run.build, run.time, run.dut_version, "tb", "o") for run in history.runs]
    entries = judge_every_build("s", [history], builds, TrendOptions(**options))  # type: ignore[arg-type]
    return {entry.build: entry.verdicts[0] for entry in entries}


@pytest.mark.parametrize("outlier_runs", [None, 0])
def test_a_one_run_regression_is_unconfirmed_then_confirmed(outlier_runs: int | None) -> None:
    values = [*LEVEL, 7.0, 7.05]
    history = _history(values, RERUN)
    verdicts = _verdicts(history, outlier_runs=outlier_runs, hold_unconfirmed=True)
    first, second = verdicts["11"], verdicts["12"]
    assert first.reason is Reason.REGRESSION and first.confirmation == "unconfirmed"
    assert "re-run to confirm" in first.message
    assert second.reason is Reason.REGRESSION and second.confirmation == "confirmed"
    assert second.since is not None and second.since.build == "11"
    assert "re-run of the same DUT version" in second.message
    # a third run at the new level is an old story
    later = _verdicts(
        _history([*values, 7.0], [*RERUN, "k"]), outlier_runs=outlier_runs, hold_unconfirmed=True
    )
    assert later["13"].reason is Reason.NORMAL and later["13"].confirmation == ""


def test_without_holding_the_confirming_run_stays_normal_as_the_methodology_has_it() -> None:
    """The gate failed on the first run already: the confirmation is news, not a new alarm."""
    verdicts = _verdicts(_history([*LEVEL, 7.0, 7.05], RERUN))
    confirmed = verdicts["12"]
    assert confirmed.reason is Reason.NORMAL and confirmed.confirmation == "confirmed"
    assert confirmed.since is not None and confirmed.since.build == "11"
    assert "confirmed by a re-run of the same DUT version" in confirmed.message


@pytest.mark.parametrize("outlier_runs", [None, 0])
def test_a_one_run_regression_the_next_run_undoes_is_dismissed(outlier_runs: int | None) -> None:
    verdicts = _verdicts(_history([*LEVEL, 7.0, 10.0], RERUN), outlier_runs=outlier_runs)
    assert verdicts["11"].confirmation == "unconfirmed"
    back = verdicts["12"]
    assert back.confirmation == "dismissed"
    # with the outlier rule an outlier run; without it the level's return, a progression
    assert back.reason is (Reason.OUTLIER if outlier_runs is None else Reason.PROGRESSION)
    assert not back.fails()


def test_a_small_one_run_regression_merged_back_is_dismissed() -> None:
    """Without the outlier rule a run back at the level can merge the dip into its group."""
    verdicts = _verdicts(_history([*LEVEL, 9.5, 10.0], RERUN), outlier_runs=0)
    assert verdicts["11"].confirmation == "unconfirmed"
    back = verdicts["12"]
    assert back.reason is Reason.NORMAL and back.confirmation == "dismissed"
    assert back.since is not None and back.since.build == "11"


def test_progressions_and_ordinary_runs_need_no_confirmation() -> None:
    verdicts = _verdicts(_history([*LEVEL, 13.0, 13.1]))
    assert verdicts["11"].reason is Reason.PROGRESSION
    assert {verdict.confirmation for verdict in verdicts.values()} == {""}


def test_waiving_lets_only_unconfirmed_regressions_pass() -> None:
    verdicts = _verdicts(_history([*LEVEL, 7.0, 7.05], RERUN), hold_unconfirmed=True)
    first, second = verdicts["11"], verdicts["12"]
    assert first.fails() and second.fails()
    waived_first, waived_second = waive([first, second], unconfirmed=True)
    assert not waived_first.fails() and waived_first.waived == "re-run to confirm"
    assert waived_second.fails() and waived_second.waived == ""
    assert waive([first], unconfirmed=False) == [first]


def test_only_regressions_are_waived_for_an_environment_change() -> None:
    """A progression never fails the job: it has nothing to be let off."""
    verdicts = _verdicts(_history([*LEVEL, 13.0, 13.1]))
    moved = replace(verdicts["11"], environment="hosts a -> b")
    (kept,) = waive([moved], unconfirmed=True)
    assert kept.reason is Reason.PROGRESSION and kept.waived == ""
    regression = replace(_verdicts(_history([*LEVEL, 7.0]))["11"], environment="hosts a -> b")
    (waived,) = waive([regression], unconfirmed=False)
    assert waived.waived == "environment change: hosts a -> b" and not waived.fails()


@pytest.mark.parametrize("outlier_runs", [None, 0])
@pytest.mark.parametrize("hold_unconfirmed", [False, True])
def test_a_run_of_another_version_at_the_new_level_confirms_nothing(
    outlier_runs: int | None, hold_unconfirmed: bool
) -> None:
    """Version l's own change could hold the level down: the grouping judges it, a
    continuing level is Normal, and the later re-run of version k confirms."""
    history = _history([*LEVEL, 7.0, 7.05, 6.95], [*"abcdefghij", "k", "l", "k"])
    verdicts = _verdicts(history, outlier_runs=outlier_runs, hold_unconfirmed=hold_unconfirmed)
    assert verdicts["11"].confirmation == "unconfirmed"
    other = verdicts["12"]
    assert other.reason is Reason.NORMAL and other.confirmation == "" and other.since is None
    rerun = verdicts["13"]
    assert rerun.confirmation == "confirmed"
    assert rerun.reason is (Reason.REGRESSION if hold_unconfirmed else Reason.NORMAL)
    assert rerun.since is not None and rerun.since.build == "11"
    assert "confirmed by a re-run of the same DUT version" in rerun.message


def test_a_run_of_another_version_back_at_the_level_is_an_outlier_not_a_dismissal() -> None:
    verdicts = _verdicts(_history([*LEVEL, 7.0, 10.0]))  # every run its own version
    back = verdicts["12"]
    assert back.reason is Reason.OUTLIER and back.confirmation == ""
    assert back.since is not None and back.since.build == "11"


def test_the_re_run_after_other_versions_dismisses_the_excursion() -> None:
    verdicts = _verdicts(_history([*LEVEL, 7.0, 7.1, 10.0], [*"abcdefghij", "k", "l", "k"]))
    back = verdicts["13"]
    assert back.reason is Reason.OUTLIER and back.confirmation == "dismissed"
    assert back.since is not None and back.since.build == "11"


@pytest.mark.parametrize("versions", [[""] * 12, [*"abcdefghij", "", "l"]])
def test_without_a_dut_version_the_next_run_settles_it(versions: list[str]) -> None:
    verdicts = _verdicts(_history([*LEVEL, 7.0, 7.05], versions))
    assert verdicts["11"].confirmation == "unconfirmed"
    confirmed = verdicts["12"]
    assert confirmed.confirmation == "confirmed"
    assert "confirmed by the next run" in confirmed.message
