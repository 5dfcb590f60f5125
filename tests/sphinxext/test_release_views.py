"""Release views over the reference's iterative and coverage datasets: the numbers shown."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sphinx.testing.util import SphinxTestApp

from tests.ndrpdr_reference import SUITE, TEST, ndrpdr_row
from tests.reference_parquet import write_reference
from tests.sphinxext import built_html

pytestmark = pytest.mark.shared_data("csit")

TWO_CORES = f"{SUITE}.64b-2c-avf-eth-l2bdbasemaclrn-ndrpdr"
RELEASES = {
    # version: (first day, NDR of the 1-core test per run, its latency floor in us)
    "25.06-release": (datetime(2025, 6, 20, 5), (9.0e6, 9.4e6, 9.2e6), 10),
    "25.10-release": (datetime(2025, 10, 20, 5), (10.0e6, 10.6e6, 10.2e6), 12),
}


def _iterative(root: Path) -> None:
    """Three runs of each test per release, as a release's iterative job makes them."""
    for version, (start, ndrs, latency) in RELEASES.items():
        rls = "rls" + version[:5].replace(".", "")
        job = f"csit-vpp-perf-report-iterative-{rls[3:]}-2n-icx"
        for run, ndr in enumerate(ndrs, start=1):
            when = start + timedelta(hours=run)
            rows = [
                ndrpdr_row(
                    str(run),
                    when,
                    ndr,
                    ndr * 1.1,
                    latency,
                    TEST,
                    job,
                    version,
                    tags=["NDRPDR", "1C"],
                ),
                ndrpdr_row(
                    str(run),
                    when,
                    2 * ndr,
                    2.2 * ndr,
                    latency,
                    TWO_CORES,
                    job,
                    version,
                    tags=["NDRPDR", "2C"],
                ),
            ]
            write_reference(root / f"iterative_{rls}", "iterative_ndrpdr", "ndrpdr", rows)


def _coverage(root: Path) -> None:
    """One run of one test, as a release's coverage job makes it."""
    row = ndrpdr_row(
        "4",
        datetime(2025, 10, 25, 5),
        10.4e6,
        11.0e6,
        12,
        TEST,
        "csit-vpp-perf-report-coverage-2510-2n-icx",
        "25.10-release",
        tags=["NDRPDR"],
    )
    write_reference(root / "coverage_rls2510", "coverage_ndrpdr", "ndrpdr", [row])


PAGE = """Releases
========

.. trending-coverage::
   :source: iterative
   :version: 25.10-release
   :loads: 0 50

.. trending-coverage::
   :source: iterative
   :filter: 2C
   :directions: reverse

.. trending-releases::
   :source: iterative
   :metric: ndr
   :tests: l2bdbasemaclrn
   :title: NDR across releases

.. trending-coverage::
   :source: coverage
   :loads: 90
"""


def _site(tmp_path: Path, make_app: Callable[..., SphinxTestApp], page: str) -> SphinxTestApp:
    srcdir = tmp_path / "site"
    srcdir.mkdir()
    _iterative(srcdir / "data")
    _coverage(srcdir / "data")
    sources = {
        "iterative": {
            "paths": ["data/iterative_rls2506", "data/iterative_rls2510"],
            "format": "parquet",
        },
        "coverage": {"paths": ["data/coverage_rls2510"], "format": "parquet"},
    }
    (srcdir / "conf.py").write_text(
        f"extensions = ['sphinxcontrib_trending']\ntrending_sources = {sources!r}\n"
    )
    (srcdir / "index.rst").write_text(page)
    app = make_app("html", srcdir=srcdir)
    app.build()
    return app


@pytest.fixture
def outdir(tmp_path: Path, make_app: Callable[..., SphinxTestApp]) -> Path:
    app = _site(tmp_path, make_app, PAGE)
    assert "WARNING" not in app.warning.getvalue(), app.warning.getvalue()
    return Path(app.outdir)


def _tables(outdir: Path) -> list[tuple[str, list[str], list[list[str]]]]:
    html = built_html.page(outdir, "index")
    found = []
    for table in html.xpath("//table[contains(@class, 'trending-coverage')]"):
        caption = table.xpath("./caption")[0].text_content().strip().rstrip("¶")
        header = [th.text_content().strip() for th in table.xpath("./thead//th")]
        found.append((caption, header, built_html.cells(table)))
    return found


def test_the_coverage_table_shows_a_version_s_medians(outdir: Path) -> None:
    (caption, header, rows), _second, _third = _tables(outdir)
    assert caption == "iterative: 25.10-release, 2 tests"
    assert header[:6] == [
        "Test",
        "Runs [#]",
        "NDR [Mpps]",
        "NDR [Gbps]",
        "PDR [Mpps]",
        "PDR [Gbps]",
    ]
    assert header[6:9] == [
        "P50 no load forward [us]",
        "P90 no load forward [us]",
        "P99 no load forward [us]",
    ]
    assert len(header) == 6 + 2 * 2 * 3  # :loads: 0 50, both directions
    one_core = next(row for row in rows if "1c" in row[0])
    # the median of 10.0, 10.6 and 10.2 Mpps; 64-byte frames of 512 bits
    assert one_core[1:6] == ["3", "10.20", "5.22", "11.22", "5.74"]
    shown = dict(zip(header, one_core, strict=True))
    # ten samples: seven at the floor (12 us at no load, 6 x 12 at 50 % PDR), then +5, +10, +40
    assert [shown[f"P{p} no load forward [us]"] for p in (50, 90, 99)] == ["12", "22", "52"]
    assert [shown[f"P{p} 50 % PDR reverse [us]"] for p in (50, 90, 99)] == ["144", "154", "184"]


def test_the_newest_version_by_default_and_the_filter_and_directions_apply(outdir: Path) -> None:
    _first, (caption, header, rows), _third = _tables(outdir)
    assert caption == "iterative: 25.10-release, 1 test"
    assert [row[0] for row in rows] == ["2n-icx 25ge2p1xxv710 avf 64b 2c eth-l2bdbasemaclrn-ndrpdr"]
    assert not any("forward" in name for name in header)
    assert len(header) == 6 + 4 * 3


def test_the_download_keeps_the_numbers_unrounded_in_the_data_s_units(outdir: Path) -> None:
    html = built_html.page(outdir, "index")
    link = html.xpath("//p[@class='trending-downloads']//a/@href")[0]
    rows = list(csv.reader(io.StringIO((outdir / link).read_text())))
    assert rows[0][:4] == ["Test", "Runs [#]", "NDR [pps]", "NDR [bps]"]
    one_core = next(row for row in rows[1:] if "1c" in row[0])
    assert float(one_core[2]) == 10.2e6 and float(one_core[3]) == 10.2e6 * 512


def test_the_releases_plot_has_a_box_per_test_and_version(outdir: Path) -> None:
    (figure,) = built_html.figures(outdir, "index").values()
    assert figure["layout"]["xaxis"]["categoryarray"] == list(RELEASES)
    assert figure["layout"]["yaxis"]["title"]["text"] == "NDR [Mpps]"
    one_core, two_cores = figure["data"]
    assert one_core["type"] == "box" and "1c" in one_core["name"] and "2c" in two_cores["name"]
    assert one_core["x"] == ["25.06-release"] * 3 + ["25.10-release"] * 3
    assert one_core["y"] == pytest.approx([9.0, 9.4, 9.2, 10.0, 10.6, 10.2])
    assert two_cores["y"] == pytest.approx([18.0, 18.8, 18.4, 20.0, 21.2, 20.4])
    assert one_core["customdata"][0] == "csit-vpp-perf-report-iterative-2506-2n-icx/1"


def test_a_coverage_dataset_s_one_run_is_shown_as_it_is(outdir: Path) -> None:
    *_iterative_tables, (caption, header, rows) = _tables(outdir)
    assert caption == "coverage: 25.10-release, 1 test"
    (row,) = rows
    shown = dict(zip(header, row, strict=True))
    assert shown["Runs [#]"] == "1" and shown["NDR [Mpps]"] == "10.40"
    # 90 % PDR: ten times the floor of 12 us forward, twenty times reverse
    assert shown["P50 90 % PDR forward [us]"] == "120"
    assert shown["P99 90 % PDR reverse [us]"] == "280"


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (
            ":version: 24.02-release",
            "no test of source 'iterative' ran DUT version '24.02-release'; "
            "versions in the data: 25.06-release, 25.10-release",
        ),
        (":loads: 0 70", "expected some of 0 10 50 90, got '0 70'"),
        (":tests: (", "bad :tests: regular expression '('"),
    ],
)
def test_a_bad_option_is_a_warning_naming_it(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp], options: str, said: str
) -> None:
    page = f"Bad\n===\n\n.. trending-coverage::\n   :source: iterative\n   {options}\n"
    app = _site(tmp_path, make_app, page)
    assert said in app.warning.getvalue()
    assert not built_html.page(app.outdir, "index").xpath("//table")
