"""Columns made when read: each row reads as the value it stands for."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from sphinxcontrib_trending.ingest.store.columns import TRIAL_STATISTICS
from sphinxcontrib_trending.ingest.store.lazy_columns import (
    CodedTexts,
    SameValue,
    TextColumn,
    TrialsColumn,
)
from sphinxcontrib_trending.ingest.store.rows import RowTrials, SharedValues


def _column() -> TrialsColumn:
    """Two chunks of rows, the second's first row empty."""
    values = pa.chunked_array(
        [[[1.0, 2.0], [3.0]], [[], [4.0, 5.0, 6.0]]], type=pa.list_(pa.float64())
    )
    empty = pa.array([None] * 4, pa.float64())
    statistics = {name: empty for pair in TRIAL_STATISTICS for name in pair}
    table = pa.table({"values": values, **statistics})
    return RowTrials(table).column()


def test_each_row_reads_as_its_values_in_any_order_and_slice() -> None:
    column = _column()
    assert len(column) == 4
    assert [tuple(row) for row in column] == [(1.0, 2.0), (3.0,), (), (4.0, 5.0, 6.0)]
    assert column[-1] == (4.0, 5.0, 6.0) and column[1:3][0] == (3.0,)
    assert len(column[1:3]) == 2


def test_spread_rows_leave_the_others_empty_and_joined_columns_keep_their_rows() -> None:
    column = _column()
    spread = TrialsColumn.spread(column[:2], np.array([1, 3]), 5)
    assert [tuple(row) for row in spread] == [(), (1.0, 2.0), (), (3.0,), ()]
    joined = TrialsColumn.joined([spread, column])
    assert [tuple(row) for row in joined] == [
        *([tuple(row) for row in spread]),
        *([tuple(row) for row in column]),
    ]
    assert len(TrialsColumn.joined([])) == 0


def test_texts_read_as_their_values_and_join_and_slice_without_being_made() -> None:
    texts = pa.chunked_array([["a", None], ["b", "c"]])
    first = TextColumn(texts, np.array([3, 0, 1]))
    second = TextColumn(pa.chunked_array([["d"]]), np.array([0]))
    joined = TextColumn.joined([first, second])
    assert list(joined) == ["c", "a", None, "d"] and joined[-1] == "d" and joined[-4] == "c"
    assert list(joined[1:4]) == ["a", None, "d"] and len(joined[2:]) == 2
    assert list(joined[4:]) == [] and len(TextColumn.joined([])) == 0
    with pytest.raises(IndexError):
        joined[4]


def test_a_repeated_value_reads_as_a_list_of_it_would() -> None:
    column = SameValue((), 3)
    assert list(column) == [(), (), ()] and column[-3] == () and len(column[1:]) == 2
    assert column[1:].made() == [(), ()]
    with pytest.raises(IndexError):
        column[3]
    assert len(SameValue.joined([column, SameValue((), 2)])) == 5
    assert SameValue.joined([column, SameValue(1, 1)]) == [(), (), (), 1]


def test_coded_texts_read_as_their_column_across_dictionaries_plain_chunks_and_nulls() -> None:
    shared = SharedValues()
    first = pa.array(["a", "b", "a"]).dictionary_encode()
    second = pa.DictionaryArray.from_arrays(
        pa.array([1, None, 0], pa.int32()), pa.array(["c", "a"])
    )
    column = pa.chunked_array([first, second])
    plain = pa.chunked_array([pa.array(["b", None])])
    coded = CodedTexts.joined(
        [CodedTexts.of(column, shared.names), CodedTexts.of(plain, shared.names)]
    )
    expected = ["a", "b", "a", "a", None, "c", "b", None]
    assert coded.made() == expected == list(coded)
    assert coded.taken([7, 0, 5]) == [None, "a", "c"]
    assert list(coded[2:6]) == expected[2:6] and coded[-3] == "c"


def test_coded_texts_spread_read_none_elsewhere_and_tell_the_texts_they_hold() -> None:
    coded = CodedTexts(["pps", "us", "bps"], np.array([1, 0, 1]))
    spread = coded.spread(np.array([4, 0, 2]), 5)
    assert spread.made() == ["pps", None, "us", None, "us"]
    assert coded.distinct() == {"pps", "us"} and spread.distinct() == {"pps", "us", None}
    assert (
        spread[1:2].distinct() == {None}
        and CodedTexts(["x"], np.array([0]))[:0].distinct() == set()
    )


def test_coded_texts_of_one_dictionary_share_its_names_and_join_without_recoding() -> None:
    shared = SharedValues()
    dictionary = pa.array(["x", "y"])
    chunks = [
        pa.DictionaryArray.from_arrays(pa.array(codes), dictionary) for codes in ([1], [0, 1])
    ]
    parts = [CodedTexts.of(pa.chunked_array([chunk]), shared.names) for chunk in chunks]
    assert parts[0].names is parts[1].names
    joined = CodedTexts.joined(parts)
    assert joined.names is parts[0].names and joined.codes.tolist() == [1, 0, 1]


def test_columns_joined_in_any_interleaving_keep_each_rows_values() -> None:
    first, second = _column(), _column()[1:]
    parts = [first[:1], second, first[1:], first[1:2], TrialsColumn.joined([])]
    joined = TrialsColumn.joined(parts)
    assert [tuple(row) for row in joined] == [tuple(row) for part in parts for row in part]
    assert len(joined) == 1 + 3 + 3 + 1


def test_trials_and_texts_come_back_from_their_arrow_form_row_for_row() -> None:
    """What a kept history writes and reads back: no values (``()``) stays apart from
    measured values, and runs on several columns' doubles keep their own."""
    doubles = [np.array([1.0, 2.0, 3.0, 4.0]), np.array([5.0, 6.0, 7.0])]
    chunks = np.array([0, -1, 1, 0], dtype=np.int32)
    trials = TrialsColumn(doubles, chunks, np.array([1, 0, 0, 0]), np.array([3, 0, 2, 0]))
    arrow = trials.arrow()
    assert arrow.to_pylist() == [[2.0, 3.0], None, [5.0, 6.0], []]
    back = TrialsColumn.of_arrow(pa.chunked_array([arrow, arrow]))
    assert [tuple(row) for row in back] == [tuple(row) for row in trials] * 2
    assert [type(back[row]) is tuple for row in range(4)] == [False, True, False, False]

    texts = TextColumn(pa.chunked_array([pa.array(["a", "b", None, "d"])]), np.array([3, 0, 2]))
    assert list(TextColumn.of_arrow(pa.chunked_array([texts.arrow()]))) == ["d", "a", None]


def test_texts_taken_in_bulk_read_as_each_row_read_alone() -> None:
    texts = pa.chunked_array([["a", None], ["b", "c"]])
    one = TextColumn(texts, np.array([3, 0, 1, 2]))
    joined = TextColumn.joined([one, TextColumn(pa.chunked_array([["d", "e"]]), np.array([1, 0]))])
    for column in (one, joined):
        rows = np.array([len(column) - 1, 0, 2, 0, 1], dtype=np.intp)
        assert column.taken(rows) == [column[row] for row in rows.tolist()]
        assert column.taken(np.zeros(0, dtype=np.intp)) == []


def test_a_whole_arrow_column_reads_takes_and_slices_as_its_rows_among_others() -> None:
    """A kept history's messages: a part of every row of its column, which
    :meth:`TextColumn.taken` reads in one take when it holds many of the rows."""
    many = pa.chunked_array([[f"m{at}" for at in range(40)], [None, "last"]])
    picked = TextColumn(pa.chunked_array([["x", "y"]]), np.array([1, 0]))
    joined = TextColumn.joined([picked, TextColumn.of_arrow(many), picked])
    expected = ["y", "x", *many.to_pylist(), "y", "x"]
    assert list(joined) == expected and len(joined) == 46
    rows = np.array([45, *range(43, 1, -1), 0, 3], dtype=np.intp)
    assert len(rows) - 3 >= TextColumn.TAKEN_IN_BULK  # the whole column's rows, in bulk
    assert joined.taken(rows) == [expected[row] for row in rows.tolist()]
    assert list(joined[1:5]) == expected[1:5] and list(joined[40:]) == expected[40:]
    assert joined.arrow().to_pylist() == expected
