"""The comparison table: blank cells for a missing side, rows coloured by the worst verdict."""

from __future__ import annotations

from sphinxcontrib_trending.analysis.comparison import ComparisonRow, Period, SideStats
from sphinxcontrib_trending.analysis.degradation.report import Report, unknown
from sphinxcontrib_trending.analysis.identity import SeriesRef
from sphinxcontrib_trending.render.comparison import comparison_table


def _report(result: str, method: str) -> Report:
    return Report(result, "mean", "p_value", 0.99, "t", 1.0, 2.0, method)


def test_cells_units_blanks_and_row_colour() -> None:
    rows = [
        ComparisonRow(
            key=SeriesRef("mrr", "2n/t"),
            test_id="t",
            name="t",
            a=SideStats(runs=2, trials=20, mean=10e6, stdev=0.5e6),
            b=SideStats(runs=3, trials=30, mean=9e6, stdev=None),
            change=-0.1,
            interval=(-0.15, -0.05),
            reports=(_report("Maybe Degradation", "aat"), _report("Degradation", "welch_t_test")),
        ),
        ComparisonRow(
            SeriesRef("mrr", "2n/u"),
            "u",
            "u",
            None,
            None,
            None,
            None,
            (unknown("u", "", "x", "y"),),
        ),
    ]
    table = comparison_table(rows, Period("v1", ()), Period("v2", ()), "pps")
    assert table.header[1] == "A Mean [Mpps]"
    assert table.caption == "A: v1 (0 builds) vs B: v2 (0 builds)"
    first, second = table.rows
    assert first.cells == (
        "t",
        "10.000",
        "0.500",
        "2",
        "9.000",
        "",
        "3",
        "-10.00",
        "-15.00 .. -5.00",
        "Maybe Degradation, Average Amount Threshold; Degradation, Welch's t-test",
    )
    assert first.classes == ("trending-regression",)
    assert first.link_key == SeriesRef("mrr", "2n/t")
    assert second.cells[1:9] == ("",) * 8 and second.cells[9] == "Unknown"
    assert second.classes == ()


def test_a_testbed_column_tells_apart_one_test_on_two_testbeds() -> None:
    """The same test on two testbeds must not show as two identical rows."""
    side = SideStats(runs=1, trials=1, mean=1.0, stdev=None)
    rows = [
        ComparisonRow(
            SeriesRef("mrr", f"{bed}/t"), "t", "t", side, side, 0.0, None, (), testbed=bed
        )
        for bed in ("2n-skx", "3n-icx")
    ]
    table = comparison_table(rows, Period("v1", ()), Period("v2", ()), "pps")
    assert table.header[:2] == ("Test Case", "Testbed")
    assert [row.cells[:2] for row in table.rows] == [("t", "2n-skx"), ("t", "3n-icx")]
    single = comparison_table(rows[:1], Period("v1", ()), Period("v2", ()), "pps")
    assert "Testbed" not in single.header
