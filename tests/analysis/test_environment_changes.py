"""Changes that start where the machine changed are labelled with what changed."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sphinxcontrib_trending.analysis import history as history_model
from sphinxcontrib_trending.analysis.environment_changes import environment_change
from sphinxcontrib_trending.analysis.news import news
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.analysis.test_run import Run
from sphinxcontrib_trending.render.news import label

START = datetime(2024, 1, 1, tzinfo=timezone.utc)
HOSTS = "10.30.51.54 10.30.51.55"


def _run(number: int, value: float | None, hosts: str = HOSTS, environment: str = "") -> Run:
    return Run(
        START + timedelta(days=number),
        "job",
        str(number),
        "v",
        "tb",
        "PASS",
        "",
        () if value is None else (value,),
        value,
        None if value is None else 0.0,
        hosts,
        environment=environment,
    )


def test_what_changed_is_named_field_by_field() -> None:
    runs = [
        _run(1, 10.0, environment="build.host=s55\ntg_version=3.00"),
        _run(2, None, hosts="", environment=""),  # no value: the run before is the first
        _run(
            3, 8.0, hosts="10.30.51.54 10.30.51.56", environment="build.host=s56\ntg_version=3.00"
        ),
    ]
    assert environment_change(runs, 2) == "host s55 -> s56; hosts 10.30.51.55 -> 10.30.51.56"
    assert environment_change(runs, 0) == ""
    # an excluded run is no reference: the one before it is
    assert environment_change(runs, 2, skipped={0}) == ""


def test_a_field_only_one_run_records_is_no_change() -> None:
    runs = [_run(1, 10.0, hosts=""), _run(2, 8.0, environment="dut_type=VPP")]
    assert environment_change(runs, 1) == ""


def _history(runs: list[Run]) -> history_model.TestHistory:
    return history_model.TestHistory(
        "tb/t", "t", "t", "s", (), "tb", None, "mrr", "pps", tuple(runs)
    )


def test_an_anomaly_at_a_host_swap_is_an_environment_change_in_trend_and_news() -> None:
    level = [10.0, 10.1, 9.9, 10.05, 9.95, 10.0]
    runs = [_run(n, value) for n, value in enumerate(level, 1)]
    runs += [_run(n, 8.0 + n / 1000, hosts="10.30.51.54 10.30.51.57") for n in range(7, 11)]
    trend = summarize(_history(runs), TrendOptions(), START + timedelta(days=11))
    assert trend.environment == {6: "hosts 10.30.51.55 -> 10.30.51.57"}
    assert trend.environment_in_window == (("regression", "hosts 10.30.51.55 -> 10.30.51.57"),)
    (item,) = news([trend], START + timedelta(days=11), 30)
    assert label(item) == "Regression, environment change: hosts 10.30.51.55 -> 10.30.51.57"


def test_an_anomaly_on_the_same_machine_is_no_environment_change() -> None:
    values = [10.0, 10.1, 9.9, 10.05, 9.95, 10.0, 8.0, 8.1, 7.9, 8.0]
    runs = [_run(n, value) for n, value in enumerate(values, 1)]
    trend = summarize(_history(runs), TrendOptions(), START + timedelta(days=11))
    assert trend.regressions == 1 and trend.environment == {}
    (item,) = news([trend], START + timedelta(days=11), 30)
    assert label(item) == "Regression"
