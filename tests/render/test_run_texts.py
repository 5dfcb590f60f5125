"""Runs' places and texts taken as columns of rows (``_RunTexts``) are each run's own,
whatever order builds come in, as rows are added and when the rows start over."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sphinxcontrib_trending.analysis.excluded import ExcludedRun, Exclusions
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.analysis.test_run import Run, RunColumns
from sphinxcontrib_trending.render import figure
from sphinxcontrib_trending.render.figure import (
    X_AXES,
    _run_link,
    _run_texts,
    _RunTexts,
    _x_of,
    trend_figure,
)
from tests import hand_built

BUILD = "https://ci.example/{job}/{build}"
START = datetime(2026, 5, 1, 6, 0, tzinfo=timezone.utc)
BUILDS = [
    (job, str(build), f"26.06-rc0~{build}" if build % 3 else None, testbed)
    for job, testbed in (("csit-daily", "2n-icx"), ("csit-<b>weekly", None))
    for build in range(6)
]
HOSTS = ("", "10.0.0.1 10.0.0.2", "10.0.0.3")


def _columns(runs: list[tuple[int, str, int]]) -> RunColumns:
    """A history's columns: each run of build ``BUILDS[b]`` on hosts ``h`` at hour ``t``."""
    made = [
        Run(START + timedelta(hours=hour), *BUILDS[build], "PASS", "", (1.0,), 1.0, 0.0, hosts)
        for build, hosts, hour in runs
    ]
    return RunColumns.of_runs(made)


def _one_by_one(columns: RunColumns, picked: list[int]) -> tuple[list[str | None], ...]:
    origins = [columns.origins[index] for index in picked]
    hosts = [columns.hosts[index] for index in picked]
    texts = [_run_texts(origin, shown) for origin, shown in zip(origins, hosts, strict=True)]
    links = [_run_link(BUILD, None, origin) for origin in origins]
    return (*(list(column) for column in zip(*texts, strict=True)), links) if texts else ([],) * 5


runs = st.lists(
    st.tuples(st.integers(0, len(BUILDS) - 1), st.sampled_from(HOSTS), st.integers(0, 3)),
    max_size=20,
)


@pytest.mark.parametrize("limit", [3, 1 << 16])
@given(histories=st.lists(runs, min_size=1, max_size=6), data=st.data())
def test_each_history_s_runs_get_their_own_places_and_texts(
    limit: int, histories: list[list[tuple[int, str, int]]], data: st.DataObject
) -> None:
    texts = _RunTexts(BUILD, None)
    texts.LIMIT = limit  # a few rows: they start over, and again
    for runs_of_history in histories:
        columns = _columns(runs_of_history)
        rows = texts.rows(columns)
        picked = sorted(data.draw(st.sets(st.integers(0, max(len(columns) - 1, 0)))))
        picked = [index for index in picked if index < len(columns)]
        some = rows[np.array(picked, dtype=np.intp)]
        for x_axis in X_AXES:
            assert texts.places(x_axis, some) == _x_of(x_axis)(columns, picked)
        expected = _one_by_one(columns, picked)
        assert texts.hover(some) == expected
        assert texts.builds(some) == _x_of("build")(columns, picked)
        assert texts.links(some) == (expected[4] if any(expected[4]) else None)


def test_a_site_has_one_set_of_rows_per_link_templates() -> None:
    assert figure._run_texts_of(BUILD, None) is figure._run_texts_of(BUILD, None)
    assert figure._run_texts_of(BUILD, None) is not figure._run_texts_of(None, None)


def test_a_history_like_the_one_before_gets_its_rows_and_one_unlike_it_its_own() -> None:
    texts = _RunTexts(BUILD, None)
    runs = [(build, "", build) for build in range(5)]
    first = texts.rows(_columns(runs))
    assert texts.rows(_columns(runs)) is first  # the same builds, hosts and times
    for changed in ([*runs[:4], (4, "10.0.0.3", 4)], [*runs[:4], (4, "", 3)], runs[:4]):
        columns = _columns(changed)
        rows = texts.rows(columns)
        assert texts.places("time", rows) == _x_of("time")(columns, None)
        assert texts.hover(rows) == _one_by_one(columns, list(range(len(columns))))


def test_histories_showing_the_same_runs_of_the_same_rows_share_their_texts() -> None:
    texts = _RunTexts(BUILD, None)
    runs = [(build, HOSTS[build % 3], build) for build in range(6)]
    rows = texts.rows(_columns(runs))
    every = texts.shown(rows, None, "build")
    assert texts.shown(texts.rows(_columns(runs)), None, "build") is every
    assert every.places == texts.places("build", rows)
    some = np.array([0, 2, 5], dtype=np.intp)
    picked = texts.shown(rows, some, "time")
    assert texts.shown(rows, some.copy(), "time") is picked
    versions, _, builds, testbeds, links = texts.hover(rows[some])
    assert picked.places == texts.places("time", rows[some])
    assert picked.columns == (versions, builds, testbeds)  # one job, three testbeds
    assert (picked.one_job, picked.one_testbed, picked.addresses) == (True, False, links)
    assert texts.shown(rows, some[:2], "time") is not picked
    assert texts.shown(texts.rows(_columns(runs[:5])), None, "build") is not every


@pytest.mark.parametrize("template", [BUILD, None])
@given(picked=st.sets(st.integers(0, 5)))
def test_some_runs_of_one_job_and_testbed_show_what_all_their_texts_would(
    template: str | None, picked: set[int]
) -> None:
    """Taken of the whole history's shared job and testbed, a subset's texts are
    those made from its own columns (and its addresses None where none has one)."""
    texts = _RunTexts(template, None)
    runs = [(build, HOSTS[1], build) for build in range(6)]  # csit-daily on 2n-icx
    rows = texts.rows(_columns(runs))
    some = np.array(sorted(picked), dtype=np.intp)
    for x_axis in X_AXES:
        shown = texts.shown(rows, some, x_axis)
        expected = figure._ShownTexts.of(texts.places(x_axis, rows[some]), texts.hover(rows[some]))
        assert shown == expected
        assert texts.shown(rows, None, x_axis).one_job


@pytest.mark.parametrize("order", [("steady", "curated"), ("curated", "steady")])
def test_a_series_showing_none_of_its_runs_beside_one_showing_all_of_the_same(
    order: tuple[str, str],
) -> None:
    """No run's texts and every run's are kept apart: the series whose one measured
    run is curated out draws no run, the other every one, in either order."""
    figure._run_texts_of.cache_clear()
    builds = hand_built.builds(
        {"steady": lambda n: 1e6, "curated": lambda n: 1e6 if n == 1 else None}, range(1, 6)
    )
    found = {history.name: history for history in histories(builds, "mrr")}
    curated = ExcludedRun("testbed rebooted", "excluded.toml:1", test="*curated", build="1")
    options = TrendOptions(exclusions=Exclusions((curated,)))
    drawn = {}
    for name in order:
        runs = trend_figure([summarize(found[name], options, builds[-1].time)])["data"][0]
        drawn[name] = (len(runs["x"]), len(runs["y"]), len(runs["customdata"]))
    assert drawn == {"steady": (5, 5, 5), "curated": (0, 0, 0)}
