"""Release views render data text inert, and bandwidth in Gbps, rates in Mpps."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.release_views import coverage, release_boxes, versions_of
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult
from sphinxcontrib_trending.render.release_views import coverage_table, releases_figure
from sphinxcontrib_trending.render.script_data import script_json

EVIL = "<img src=x onerror=alert(1)>"
START = datetime(2025, 6, 1, tzinfo=timezone.utc)


def _builds() -> list[Build]:
    test = TestResult(
        test_id=f"tests.l2.64b-1c-{EVIL}-ndrpdr",
        name=f"64b-1c-{EVIL}-ndrpdr",
        suite="tests.l2",
        tags=(),
        status="PASS",
        start=None,
        message="",
        measurements=(
            Measurement("ndr", "pps", (10.5e6,)),
            Measurement("ndr_bandwidth", "bps", (5.376e9,)),
        ),
    )
    return [
        Build(
            f"job{EVIL}",
            str(number),
            START + timedelta(days=number),
            f"25.06{EVIL}",
            None,
            "x",
            (test,),
        )
        for number in range(3)
    ]


def test_the_releases_figure_escapes_names_versions_and_builds() -> None:
    found = histories(_builds(), "ndr")
    versions = versions_of(found)
    figure = releases_figure(release_boxes(found, versions), versions, "ndr", title=EVIL)
    (trace,) = figure["data"]
    assert "&lt;img" in trace["name"] and "&lt;img" in trace["x"][0]
    assert trace["customdata"][0].startswith("job&lt;img")
    assert figure["layout"]["xaxis"]["categoryarray"] == [trace["x"][0]]
    assert trace["y"] == [10.5] * 3  # Mpps
    assert "<" not in script_json(figure)


def test_the_coverage_table_shows_rates_in_mpps_and_bandwidth_in_gbps() -> None:
    metrics = ["ndr", "ndr_bandwidth"]
    rows = coverage({m: histories(_builds(), m) for m in metrics}, f"25.06{EVIL}")
    table = coverage_table(rows, metrics, f"25.06{EVIL}", "src")
    assert table.header == ("Test", "Runs [#]", "NDR [Mpps]", "NDR [Gbps]")
    assert table.raw_header == ("Test", "Runs [#]", "NDR [pps]", "NDR [bps]")
    (row,) = table.rows
    assert row.cells[1:] == ("3", "10.50", "5.38")
    assert row.raw[2:] == (10.5e6, 5.376e9)
