"""A history's runs as columns: the runs made of them are the runs they were made of."""

from __future__ import annotations

import itertools
import pickle
from datetime import UTC, datetime, timedelta

import numpy as np
import pyarrow as pa
import pytest

from sphinxcontrib_trending.analysis.test_run import (
    ColumnRuns,
    FailedRuns,
    Run,
    RunColumns,
    RunTable,
    failed_runs,
)
from sphinxcontrib_trending.ingest.store.lazy_columns import CodedTexts, SameValue, TextColumn

START = datetime(2024, 1, 1, tzinfo=UTC)


def _runs() -> tuple[Run, ...]:
    """A measured run, a failed one without values, a -0.0 and a zero-deviation one."""
    return (
        Run(START, "job", "1", "v1", "tb", "PASS", "", (1.0, 3.0), 2.0, 1.0, hosts="h1"),
        Run(START + timedelta(days=1), "job", "2", "v1", "tb", "FAIL", "boom", (), None, None),
        Run(START + timedelta(days=2), "job", "3", None, "tb", "PASS", "", (-0.0,), -0.0, 0.0),
        Run(START + timedelta(days=3), "job", "4", "v2", None, "PASS", "", (5.0,), 5.0, 0.0),
    )


def test_columns_give_back_every_run_field_for_field() -> None:
    runs = _runs()
    columns = RunColumns.of_runs(runs)
    assert len(columns) == 4
    assert columns.measured.tolist() == [True, False, True, True]
    assert columns.made() == runs
    assert [columns.run(index) for index in range(-4, 4)] == [*runs, *runs]
    made = columns.run(2)
    assert str(made.average) == "-0.0" and made.stdev == 0.0
    assert columns.run(1).average is None and columns.run(1).stdev is None


def test_column_runs_read_as_the_tuple_of_their_runs() -> None:
    runs = _runs()
    lazy = ColumnRuns(RunColumns.of_runs(runs))
    assert len(lazy) == 4 and lazy[-1] == runs[-1] and lazy[1:3] == runs[1:3]
    assert lazy == runs and lazy == ColumnRuns(RunColumns.of_runs(runs))
    assert hash(lazy) == hash(runs)
    assert list(lazy) == list(runs) and lazy[0] == runs[0]
    assert runs[:1] + lazy == runs[:1] + runs and lazy + runs[:1] == runs + runs[:1]
    assert pickle.loads(pickle.dumps(lazy)) == runs
    assert type(pickle.loads(pickle.dumps(lazy))) is tuple
    assert lazy != list(runs) and lazy != ColumnRuns(RunColumns.of_runs(runs[:3]))


def test_a_run_read_alone_is_made_once_however_often_it_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs = _runs()
    columns = RunColumns.of_runs(runs)
    made = []
    make = columns.run
    monkeypatch.setattr(columns, "run", lambda index: made.append(index) or make(index))
    lazy = ColumnRuns(columns)
    assert [lazy[1], lazy[1], lazy[-1], lazy[2], lazy[-1]] == [*runs[1:2] * 2, runs[3], *runs[2:]]
    assert lazy[1] is lazy[1] and made == [1, -1, 2]
    with pytest.raises(IndexError):
        lazy[4]
    assert lazy == runs and lazy[0] == runs[0]


def test_columns_pickle_as_their_own_runs_not_their_whole_table() -> None:
    runs = _runs()
    table = RunTable.of_runs(runs * 50)
    columns = RunColumns(table, 4, 8)  # the second history's four runs of 200
    back = pickle.loads(pickle.dumps(columns))
    assert back.made() == runs and len(back) == 4
    assert len(pickle.dumps(columns)) * 10 < len(pickle.dumps(RunColumns(table, 0, 200)))


def _history(builds: list[int], hosts: list[str]) -> list[Run]:
    """Runs in builds ``builds`` (one table's builds: one object each) on ``hosts``."""
    return [
        Run(
            START + timedelta(days=build),
            "job",
            str(build),
            "v",
            "tb",
            "PASS",
            "",
            (),
            None,
            None,
            host,
        )
        for build, host in zip(builds, hosts, strict=True)
    ]


@pytest.mark.parametrize("coded", [False, True], ids=["listed", "store codes"])
def test_histories_run_alike_when_their_builds_and_hosts_are_equal(coded: bool) -> None:
    histories = [
        _history([0, 1, 2], ["a", "b", "b"]),
        _history([0, 1, 2], ["a", "b", "b"]),  # ran as the first
        _history([0, 1, 2], ["a", "b", "c"]),  # another host
        _history([0, 2, 3], ["a", "b", "b"]),  # another build
        _history([0, 1], ["a", "b"]),  # fewer runs
    ]
    made = RunTable.of_runs([run for runs in histories for run in runs])
    origins = {run.origin: run.time for runs in histories for run in runs}
    at = {origin: number for number, origin in enumerate(origins)}
    details = list(made.details)
    if coded:
        names = sorted(set(details[2]))
        details[2] = CodedTexts(names, np.array([names.index(h) for h in details[2]]))
    table = RunTable(
        list(origins.values()),
        list(origins),
        np.array([at[origin] for origin in made.origins], dtype=np.intp),
        made.trials,
        details,
        made.averages,
        made.stdevs,
        np.arange(len(made.averages)),
    )
    bounds = np.cumsum([0, *map(len, histories)])
    columns = [RunColumns(table, low, high) for low, high in itertools.pairwise(bounds)]
    assert [columns[0].same_runs(other) for other in columns] == [True, True, False, False, False]
    if coded:  # found equal by the table's numbers: no column made
        assert {"origins", "hosts", "times"}.isdisjoint(vars(columns[1]))
    for mine, runs in zip(columns, histories, strict=True):
        assert mine.made() == tuple(runs)
    assert columns[0].same_runs(RunColumns.of_runs(histories[1]))  # another table: by value


def test_histories_of_the_same_builds_asked_in_turn_share_their_times() -> None:
    histories = [_history([0, 1, 2], ["a"] * 3), _history([0, 1, 2], ["b"] * 3)]
    histories.append(_history([0, 2, 3], ["a"] * 3))
    made = RunTable.of_runs([run for runs in histories for run in runs])
    origins = {run.origin: run.time for runs in histories for run in runs}
    at = {origin: number for number, origin in enumerate(origins)}
    table = RunTable(
        list(origins.values()),
        list(origins),
        np.array([at[origin] for origin in made.origins], dtype=np.intp),
        made.trials,
        made.details,
        made.averages,
        made.stdevs,
        np.arange(len(made.averages)),
    )
    columns = [RunColumns(table, low, low + 3) for low in (0, 3, 6)]
    times = [mine.times for mine in columns]
    assert times == [[run.time for run in runs] for runs in histories]
    assert times[0] is times[1] and times[2] is not times[1]


@pytest.mark.parametrize("coded", [False, True], ids=["listed", "store codes"])
def test_failed_runs_of_many_histories_are_those_read_a_run_at_a_time(coded: bool) -> None:
    """Unmeasured runs that did not pass, with their messages, in each history's order,
    whether the histories share a table (a store's, rows not in history order) or not."""
    statuses = ["PASS", "FAIL", "PASS", "ERROR", "FAIL", "PASS", "FAIL"]
    runs = [
        Run(
            START + timedelta(days=day),
            "job",
            str(day),
            "v",
            "tb",
            status,
            f"m{day}",
            (),
            None,
            None,
        )
        if day % 2 or status != "PASS"
        else Run(
            START + timedelta(days=day), "job", str(day), "v", "tb", status, "", (1.0,), 1.0, 0.0
        )
        for day, status in enumerate(statuses)
    ]
    made = RunTable.of_runs(runs)
    details = [column[::-1] for column in made.details]  # rows stored newest first
    if coded:
        names = ["FAIL", "PASS", "ERROR"]
        details[0] = CodedTexts(names, np.array([names.index(text) for text in details[0]]))
        details[1] = TextColumn(pa.chunked_array([details[1][:3], details[1][3:]]), np.arange(7))
    table = RunTable(
        made.times,
        made.origins,
        made.builds[::-1].copy(),
        made.trials[::-1],
        details,
        made.averages[::-1].copy(),
        made.stdevs[::-1].copy(),
        np.arange(len(runs))[::-1].copy(),
    )
    assert RunColumns(table, 0, len(runs)).made() == tuple(runs)
    histories = [RunColumns(table, 0, 4), RunColumns(table, 4, 7), RunColumns(table, 2, 2)]
    histories.append(RunColumns.of_runs(runs[:3]))  # a table of its own
    expected = []
    for columns in histories:
        made = columns.made()
        failed = [at for at, run in enumerate(made) if run.average is None and run.status != "PASS"]
        expected.append(FailedRuns(failed, [made[at].message for at in failed]))
    assert failed_runs(histories) == expected
    assert expected[0].runs and expected[1].runs and expected[3].runs
    assert expected[0].messages == ["m1", "m3"]


def test_runs_tell_whether_any_has_percentiles_as_their_column_says() -> None:
    """A store's runs share one empty value (told without a list of them); runs made
    one by one are each looked at."""
    runs = _runs()
    made = RunTable.of_runs(runs)
    assert not RunColumns(made, 0, 4).any_percentiles()
    with_some = [*runs[:3], runs[3]._replace(percentiles=(("p50", 1.0),))]
    assert RunColumns.of_runs(with_some).any_percentiles()
    assert not RunColumns.of_runs(with_some[:3]).any_percentiles()
    for shared, expected in (((), False), ((("p50", 1.0),), True)):
        details = [*made.details]
        details[3] = SameValue(shared, 4)
        table = RunTable(
            made.times,
            made.origins,
            made.builds,
            made.trials,
            details,
            made.averages,
            made.stdevs,
            made.order,
        )
        assert [RunColumns(table, 0, high).any_percentiles() for high in (4, 0)] == [
            expected,
            False,
        ]
        assert RunColumns(table, 0, 4).any_percentiles() == any(RunColumns(table, 0, 4).percentiles)
