"""The render/ tables on hand-built data: exact cells, row order, captions and classes.

The site tests check the same tables through a whole Sphinx build; these call
the table builders directly, so a wrong number or order names its function.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from sphinxcontrib_trending.analysis import history as history_model
from sphinxcontrib_trending.analysis import summary
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.identity import SeriesRef
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.display import display_unit, percent
from sphinxcontrib_trending.render.dashboard import dashboard_tables, header
from sphinxcontrib_trending.render.failed import HEADER as FAILED_HEADER
from sphinxcontrib_trending.render.failed import failed_tables
from sphinxcontrib_trending.render.grouping import (
    GroupByError,
    caption_for,
    parse_group_by,
    split,
)
from tests import hand_built
from tests.hand_built import JOB, build_time

HOSTILE = '<script>alert("x")</script> & co'
LEVELS: dict[str, hand_built.Level] = {
    "regress": lambda n: 10e6 if n < 25 else 8e6,
    "progress": lambda n: 5e6 if n < 27 else 6e6,
    "stable": lambda n: 3e6,
    HOSTILE: lambda n: 2e6,
}
END = build_time(30)


def _trends(builds) -> list[summary.TestTrend]:
    return [summarize(history, TrendOptions(), END) for history in histories(builds, "mrr")]


@pytest.fixture(scope="module")
def trends() -> list[summary.TestTrend]:
    skx = hand_built.builds(LEVELS, range(1, 31))
    icx = hand_built.builds(
        {"stable": lambda n: 4e6}, range(21, 31), testbed="3n-icx", job="job-3n-icx"
    )
    return _trends(skx + icx)


@pytest.mark.parametrize(
    ("unit", "scale", "label", "shown"),
    [
        ("pps", 1e-6, "Mpps", "12.35"),
        ("cps", 1e-6, "Mcps", "12.35"),
        ("bps", 1e-6, "Mbps", "12.35"),
        ("ms", 1.0, "ms", "12345678.00"),
        (None, 1.0, "value", "12345678.00"),
    ],
)
def test_rates_show_in_millions_and_other_units_as_they_are(
    unit: str | None, scale: float, label: str, shown: str
) -> None:
    display = display_unit(unit)
    assert (display.scale, display.label) == (scale, label)
    assert display.format(12_345_678.0) == shown
    assert display.format(None) == ""


def test_percent_has_two_decimals_and_blank_for_no_value() -> None:
    assert [percent(x) for x in (-0.2, 0.05, 0.0, 1 / 3, None)] == [
        "-20.00",
        "5.00",
        "0.00",
        "33.33",
        "",
    ]


def test_group_by_accepts_known_fields_in_any_case_and_names_the_known_ones() -> None:
    assert parse_group_by(" Testbed , cores,, ") == ("testbed", "cores")
    assert parse_group_by("") == ()
    assert parse_group_by("NIC, frame-size, Test_Type") == ("nic", "frame_size", "test_type")
    with pytest.raises(GroupByError, match=r"field\(s\) nics; known: testbed, nic,"):
        parse_group_by("testbed, nics")
    assert caption_for(("testbed", "cores"), ("2n-skx", None)) == "Testbed 2n-skx, no cores"
    assert caption_for(("suite",), ("tests.perf",)) == "Suite tests.perf"


def _history(name: str, testbed: str | None, cores: str | None) -> history_model.TestHistory:
    return history_model.TestHistory(name, name, name, "s", (), testbed, cores, "mrr", "pps", ())


def test_split_orders_groups_by_caption_with_missing_values_last() -> None:
    items = [
        _history("a", None, "1T1C"),
        _history("b", "3n-icx", "2T1C"),
        _history("c", "2n-skx", None),
        _history("d", "2n-skx", "1T1C"),
        _history("e", "3n-icx", "2T1C"),
    ]
    groups = split(items, ("testbed", "cores"), lambda history: history)
    assert [(caption, [h.name for h in members]) for caption, members in groups] == [
        ("Testbed 2n-skx, cores 1T1C", ["d"]),
        ("Testbed 2n-skx, no cores", ["c"]),
        ("Testbed 3n-icx, cores 2T1C", ["b", "e"]),
        ("No testbed, cores 1T1C", ["a"]),
    ]


def _cells(table) -> dict[str, tuple[str, ...]]:
    return {row.cells[0]: row.cells for row in table.rows}


def test_dashboard_cells_hold_the_injected_changes(trends: list[summary.TestTrend]) -> None:
    skx, icx = dashboard_tables(trends, ("testbed", "cores"))
    assert (skx.caption, icx.caption) == (
        "Testbed 2n-skx, cores 2T1C",
        "Testbed 3n-icx, cores 2T1C",
    )
    # the full header is asserted through the HTML in test_site; here the unit label
    assert skx.header == header("Mpps") and skx.header[1] == "Trend [Mpps]"
    cells = _cells(skx)
    assert cells["regress"] == (
        *("regress", "8.00", "6", "-20.00", "-20.00", "1", "0", "0"),
        "26.02-rc0~24 .. 26.02-rc0~25",
    )
    assert cells["progress"] == (
        *("progress", "6.00", "4", "20.00", "20.00", "0", "1", "0"),
        "26.02-rc0~26 .. 26.02-rc0~27",
    )
    assert cells["stable"] == ("stable", "3.00", "30", "0.00", "0.00", "0", "0", "0", "")
    assert _cells(icx)["stable"] == ("stable", "4.00", "10", "0.00", "0.00", "0", "0", "0", "")


def test_the_latest_changes_range_links_to_the_commits_between(
    trends: list[summary.TestTrend],
) -> None:
    compare = "https://git.example.org/compare/{last_good}...{first_bad}?on={testbed}"
    skx = dashboard_tables(trends, ("testbed",), links=LinkTemplates(compare=compare))[0]
    rows = {row.cells[0]: row for row in skx.rows}
    assert rows["regress"].links[-1] == (
        "https://git.example.org/compare/26.02-rc0~24...26.02-rc0~25?on=2n-skx"
    )
    assert rows["regress"].raw[-1] == "26.02-rc0~24 .. 26.02-rc0~25"
    assert rows["stable"].links == () and rows["stable"].raw[-1] is None
    assert all(row.links == () for row in dashboard_tables(trends, ("testbed",))[0].rows)


def test_dashboard_rows_carry_links_classes_and_raw_names(trends: list[summary.TestTrend]) -> None:
    skx = dashboard_tables(trends, ("testbed",))[0]
    rows = {row.cells[0]: row for row in skx.rows}
    assert rows["regress"].classes == ("trending-regression",)
    assert rows["progress"].classes == ("trending-progression",)
    assert rows["stable"].classes == ()
    assert rows["stable"].link_key == SeriesRef("mrr", "2n-skx/tests.perf.stable")
    # Escaping is the writer's job: a pre-escaped cell would show "&lt;" on the page.
    assert HOSTILE in rows and rows[HOSTILE].cells[1] == "2.00"


def test_dashboard_sorts_anomalies_first_then_the_worst_long_term_change(
    trends: list[summary.TestTrend],
) -> None:
    by_name = {(t.history.testbed, t.history.name): t for t in trends}
    stable = by_name[("2n-skx", "stable")]

    def variant(name: str, long_change: float | None) -> summary.TestTrend:
        history = replace(stable.history, name=name, key=f"2n-skx/{name}")
        return replace(
            stable, history=history, compliance=replace(stable.compliance, long_change=long_change)
        )

    shuffled = [
        variant("unknown", None),
        variant("up", 0.02),
        by_name[("2n-skx", "progress")],
        variant("down-b", -0.05),
        variant("down-a", -0.05),
        by_name[("2n-skx", "regress")],
    ]
    (table,) = dashboard_tables(shuffled, ("testbed",))
    assert [row.cells[0] for row in table.rows] == [
        "regress",
        "progress",
        "down-a",
        "down-b",
        "up",
        "unknown",
    ]
    assert _cells(table)["unknown"][4] == "too new"


def test_a_change_without_value_says_why(trends: list[summary.TestTrend]) -> None:
    from sphinxcontrib_trending.analysis.compliance import Compliance
    from sphinxcontrib_trending.render.dashboard import FROM_ZERO, NO_VALUE, TOO_NEW

    stable = next(t for t in trends if t.history.name == "stable")
    found = {
        "new": Compliance(None, None, 5.0, None, None),
        "failing": Compliance(None, None, None, None, None),
        "zero": Compliance(None, 0.1, 5.0, 0.0, 4.5),
    }
    shown = [
        replace(
            stable,
            history=replace(stable.history, name=name, key=f"k/{name}"),
            compliance=compliance,
        )
        for name, compliance in found.items()
    ]
    (table,) = dashboard_tables([stable, *shown], ("testbed",))
    rows = {row.cells[0]: row for row in table.rows}
    assert rows["new"].cells[3:5] == (TOO_NEW[0], TOO_NEW[0])
    assert rows["new"].reasons[3:5] == (TOO_NEW[1], TOO_NEW[1])
    assert rows["failing"].cells[3:5] == (NO_VALUE[0], NO_VALUE[0])
    assert rows["zero"].cells[3:5] == (FROM_ZERO[0], "10.00")
    assert rows["zero"].reasons[3:5] == (FROM_ZERO[1], "")
    assert rows["stable"].reasons == ()  # every value there
    assert rows["new"].raw[3:5] == (None, None)  # the CSV download keeps them empty


def _failed_builds():
    skx = hand_built.builds(
        {
            "flaky": lambda n: None if n in (28, 30) else 2e6,
            "broken": lambda n: None if n == 29 else 1e6,
            "alpha": lambda n: None if n == 29 else 1e6,
            "old": lambda n: None if n == 3 else 1e6,
            HOSTILE: lambda n: None if n == 26 else 1e6,
        },
        range(1, 31),
    )
    icx = hand_built.builds({"icx": lambda n: None}, [30], testbed="3n-icx", job="job-3n-icx")
    bare = hand_built.builds({"bare": lambda n: None}, [27], testbed=None, job="job-bare")
    return skx + icx + bare


def test_failed_tables_count_within_the_window_most_failures_first() -> None:
    since = END - timedelta(days=7)
    skx, icx, bare = failed_tables(_failed_builds(), since, metric="mrr")
    assert [t.caption for t in (skx, icx, bare)] == [
        "Testbed 2n-skx",
        "Testbed 3n-icx",
        "No testbed",
    ]
    assert skx.header == FAILED_HEADER
    # "old" failed before the window; equal counts and times go by name
    assert [row.cells for row in skx.rows] == [
        ("flaky", "2", "2026-01-30 06:00 UTC", "26.02-rc0~30", f"{JOB}/30"),
        ("alpha", "1", "2026-01-29 06:00 UTC", "26.02-rc0~29", f"{JOB}/29"),
        ("broken", "1", "2026-01-29 06:00 UTC", "26.02-rc0~29", f"{JOB}/29"),
        (HOSTILE, "1", "2026-01-26 06:00 UTC", "26.02-rc0~26", f"{JOB}/26"),
    ]
    assert skx.rows[0].link_key == SeriesRef("mrr", "2n-skx/tests.perf.flaky")
    assert [row.cells[:2] for row in icx.rows] == [("icx", "1")]
    assert bare.rows[0].link_key == SeriesRef("mrr", "tests.perf.bare")


def test_failed_tables_keep_only_accepted_tests() -> None:
    since = END - timedelta(days=7)
    tables = failed_tables(
        _failed_builds(), since, metric="mrr", accept=lambda test, _: test.name == "flaky"
    )
    assert [(t.caption, [row.cells[0] for row in t.rows]) for t in tables] == [
        ("Testbed 2n-skx", ["flaky"])
    ]


def test_columns_have_a_kind_that_sets_alignment_and_wrapping() -> None:
    from sphinxcontrib_trending.render.table import LABEL, NUMBER, TEXT, Table

    plain = Table("", ("Test Case", "Runs [#]", "Change [%]"), ())
    assert plain.column_kinds() == (LABEL, NUMBER, NUMBER)
    worded = Table("", ("Test Case", "Result"), (), kinds=(LABEL, TEXT))
    assert worded.column_kinds() == (LABEL, TEXT)
    with pytest.raises(ValueError, match="1 column kinds for 2 columns"):
        Table("", ("Test Case", "Result"), (), kinds=(LABEL,))
