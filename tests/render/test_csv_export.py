"""CSV downloads: raw values under unit headers, formula cells made inert, quoting."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest

from sphinxcontrib_trending.render.csv_export import csv_cell, table_csv
from sphinxcontrib_trending.render.dashboard import dashboard_tables
from sphinxcontrib_trending.render.failed import failed_tables
from sphinxcontrib_trending.render.table import Row, Table
from tests import hand_built
from tests.render.test_render_tables import END, JOB, _trends


def _parsed(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tTAB", "'\tTAB"),
        ("plain-name=ok", "plain-name=ok"),
        (-12.5, "-12.5"),
        (8e6, "8000000"),
        (-19.999999999999996, "-20"),
        (3, "3"),
        (None, ""),
        (float("nan"), ""),
    ],
)
def test_text_that_starts_a_formula_is_quoted_and_numbers_stay_numbers(
    value: object, written: str
) -> None:
    assert csv_cell(value) == written


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("ok\n=2+2", "ok\n'=2+2"),
        ("a\r\n@SUM(A1)", "a\r\n'@SUM(A1)"),
        ("=1\r-2", "'=1\r'-2"),
        ("line\nplain", "line\nplain"),
    ],
)
def test_each_line_that_starts_a_formula_is_made_inert(value: str, written: str) -> None:
    assert csv_cell(value) == written


def test_commas_quotes_and_newlines_survive_a_round_trip() -> None:
    name = 'a,b "c"\nd'
    table = Table(
        "",
        ("Test Case", "Value [pps]"),
        (Row((name, "1.00"), raw=(name, 1e6)),),
        ("Test Case", "Value [pps]"),
    )
    assert _parsed(table_csv(table)) == [["Test Case", "Value [pps]"], [name, "1000000"]]


@pytest.mark.parametrize("name", ["job\rname", "test\r", "24.02\rrc0"])
def test_a_bare_carriage_return_in_a_name_is_quoted(name: str) -> None:
    """A lone CR ends a row in a spreadsheet: such a field must be quoted like a newline."""
    table = Table("", ("Test Case", "Job"), (Row(("t", name)),))
    written = table_csv(table)
    assert written == f'Test Case,Job\nt,"{name}"\n'
    assert _parsed(written) == [["Test Case", "Job"], ["t", name]]


def test_a_row_of_one_empty_field_is_not_a_blank_line() -> None:
    table = Table("", ("Note",), (Row(("",)),))
    assert table_csv(table) == 'Note\n""\n'
    assert _parsed(table_csv(table)) == [["Note"], [""]]


def test_a_table_without_raw_values_downloads_its_cells_as_shown() -> None:
    table = Table("", ("Test Case", "Note"), (Row(("x", "=1+1")),))
    assert _parsed(table_csv(table)) == [["Test Case", "Note"], ["x", "'=1+1"]]


def test_dashboard_csv_holds_raw_rates_and_unrounded_changes() -> None:
    trends = _trends(
        hand_built.builds({"regress": lambda n: 10e6 if n < 25 else 8e6}, range(1, 31))
    )
    (table,) = dashboard_tables(trends, ())
    header, row = _parsed(table_csv(table))
    assert header[:2] == ["Test Case", "Trend [pps]"]
    assert table.header[1] == "Trend [Mpps]"
    assert row[0] == "regress"
    assert float(row[1]) == pytest.approx(8e6)
    assert row[2] == "6"  # runs in the last group
    assert float(row[4]) == pytest.approx(-20.0)  # long-term change in percent
    assert row[5:] == ["1", "0", "0", "26.02-rc0~24 .. 26.02-rc0~25"]


def test_failed_csv_has_iso_times_in_utc() -> None:
    builds = hand_built.builds({"broken": lambda n: None if n == 29 else 1e6}, range(1, 31))
    (table,) = failed_tables(builds, END - timedelta(days=7), metric="mrr")
    header, row = _parsed(table_csv(table))
    assert header[2] == "Last Failure [UTC, ISO 8601]"
    assert row == ["broken", "1", "2026-01-29T06:00:00+00:00", "26.02-rc0~29", f"{JOB}/29"]
