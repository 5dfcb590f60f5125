"""Generic (non-CSIT) data renders like generic data, and graphs stay readable."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import lxml.html
from sphinx.testing.util import SphinxTestApp

from tests.sphinxext import built_html, datasets
from tests.sphinxext.conftest import SiteFactory

PAGES = """Generic
=======

.. trending-dashboard::

.. trending-failed-tests::
   :window: 100

.. trending-graph::
   :tests: parse-small-file
"""


def _generic_site(tmp_path: Path, make_app: Callable[..., SphinxTestApp]) -> SphinxTestApp:
    srcdir = tmp_path / "generic"
    srcdir.mkdir()
    (srcdir / "conf.py").write_text(
        'extensions = ["sphinxcontrib_trending"]\n'
        'trending_sources = {"timing": {"paths": ["runs.jsonl"], "format": "jsonl",'
        ' "metric": "seconds", "direction": "lower"}}\n'
    )
    (srcdir / "index.rst").write_text(PAGES)
    rows = []
    for build in range(1, 13):
        for name in ("parse-small-file", "parse-large-file"):
            failed = name == "parse-small-file" and build == 7
            rows.append(
                {
                    "test": f"parser.{name}",
                    "build": build,
                    "time": f"2026-03-{build:02d}T00:00:00Z",
                    "status": "FAIL" if failed else "PASS",
                    "metric": "seconds",
                    "unit": "s",
                    "values": [] if failed else [1.5, 1.52],
                }
            )
    (srcdir / "runs.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    app = make_app("html", srcdir=srcdir)
    app.build()
    return app


def test_generic_data_has_no_csit_captions_or_labels(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp]
) -> None:
    app = _generic_site(tmp_path, make_app)
    assert "WARNING" not in app.warning.getvalue(), app.warning.getvalue()
    page = lxml.html.fromstring((Path(app.outdir) / "index.html").read_bytes())
    tables = page.xpath("//table[contains(@class, 'trending-table')]")
    assert len(tables) == 2  # one dashboard, one failed-tests table
    assert page.xpath("//table/caption") == []  # no "No testbed, no cores", no "No testbed"
    header = [th.text_content().strip() for th in tables[0].xpath("./thead//th")]
    assert header[1] == "Trend [s]"
    assert all("trending-table-box" in table.getparent().get("class").split() for table in tables)
    (figure,) = built_html.figures(app.outdir, "index").values()
    assert figure["layout"]["yaxis"]["title"]["text"] == "seconds [s]"
    failed = [trace for trace in figure["data"] if trace["name"].endswith(" failed")]
    assert len(failed) == 1
    assert failed[0].get("showlegend", True)
    assert failed[0]["x"] == ["2026-03-07 00:00:00"]
    assert failed[0]["y"] == [1.51]  # on the trend the failure interrupted
    css = (Path(app.outdir) / "_static" / "trending.css").read_text()
    # names and numbers never break (test_themes.py measures it in a browser)
    assert "tbody td { text-align: right; white-space: nowrap;" in css


def test_csit_metrics_keep_their_acronyms(site: SiteFactory) -> None:
    app = site()
    app.build()
    page = lxml.html.fromstring((Path(app.outdir) / "graphs.html").read_bytes())
    figures = list(built_html.figures(app.outdir, "graphs").values())
    assert figures[0]["layout"]["yaxis"]["title"]["text"] == "MRR [Mpps]"
    flaky = next(figure for figure in figures if figure["data"][0]["name"] == "flaky")
    failed = next(trace for trace in flaky["data"] if trace["name"] == "flaky failed")
    assert len(failed["x"]) == 2
    assert failed["marker"]["symbol"] == "x-thin-open"
    assert "Traffic generator failed" in failed["customdata"][0][1]
    assert datasets.TESTBED in page.text_content()


def test_several_testbeds_differ_by_symbol_and_dash(site: SiteFactory) -> None:
    app = site()
    other = Path(app.srcdir) / "data" / "other.jsonl"
    datasets.write(other.parent, range(1, 31), name="other.jsonl")
    other.write_text(
        other.read_text()
        .replace(datasets.TESTBED, "3n-icx")
        .replace(datasets.JOB, datasets.JOB.replace("2n-skx", "3n-icx"))
    )
    (Path(app.srcdir) / "graphs.rst").write_text(
        "Graphs\n======\n\n.. trending-graph::\n   :source: perf\n   :tests: regress\n"
    )
    app.build()
    (figure,) = built_html.figures(app.outdir, "graphs").values()
    points = {
        trace["name"]: trace
        for trace in figure["data"]
        if trace["mode"] == "markers" and trace["name"].endswith(")")
    }
    lines = {trace["name"]: trace for trace in figure["data"] if trace["mode"] == "lines"}
    assert set(points) == {"regress (2n-skx)", "regress (3n-icx)"}
    assert points["regress (2n-skx)"]["marker"]["symbol"] == "circle"
    assert points["regress (3n-icx)"]["marker"]["symbol"] == "square"
    assert lines["regress (2n-skx) trend"]["line"]["dash"] == "solid"
    assert lines["regress (3n-icx) trend"]["line"]["dash"] == "dash"
