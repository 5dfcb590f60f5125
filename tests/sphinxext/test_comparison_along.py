"""``trending-comparison`` along a dimension or between releases, as a page shows it."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

from tests.sphinxext.built_html import cells, page

CASE = "64b-2t1c-avf-ethip4-ip4base-mrr"
NICS = {"25ge2p1xxv710": 10e6, "100ge2p1e810cq": 20e6}
PAGE = """Compare
=======

.. trending-comparison::
   :compare: nic
   :a: 25ge2p1xxv710
   :b: 100ge2p1e810cq

.. trending-comparison::
   :compare: version
   :a: 26.02
   :b: 26.06

.. trending-comparison::
   :period: dates 2026-03-01..2026-03-31
"""


def _site(tmp_path: Path, make_app: Callable[..., SphinxTestApp]) -> SphinxTestApp:
    srcdir = tmp_path / "site"
    srcdir.mkdir()
    rows = []
    for build in range(1, 13):
        for nic, level in NICS.items():
            step = 1.1 if build > 6 and nic == "100ge2p1e810cq" else 1.0
            rows.append(
                {
                    "test": f"tests.vpp.perf.ip4.2n1l-{nic}-avf-ethip4-ip4base-mrr.{CASE}",
                    "build": build,
                    "job": "csit-vpp-perf-mrr-daily-master-2n-icx",
                    "testbed": "2n-icx",
                    "version": "26.02" if build <= 6 else "26.06",
                    "time": f"2026-03-{build:02d}T00:00:00Z",
                    "values": [level * step * (1 + k / 1000) for k in (-1, 0, 1)],
                    "unit": "pps",
                }
            )
    (srcdir / "runs.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    source = {"paths": ["runs.jsonl"], "format": "jsonl"}
    (srcdir / "conf.py").write_text(
        f"extensions = ['sphinxcontrib_trending']\ntrending_sources = {{'perf': {source!r}}}\n"
    )
    (srcdir / "index.rst").write_text(PAGE)
    app = make_app("html", srcdir=srcdir)
    app.build()
    return app


def test_nic_against_nic_pairs_tests_and_offers_the_raw_samples(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp]
) -> None:
    app = _site(tmp_path, make_app)
    html = page(app.outdir, "index")
    along, releases = html.xpath("//table[contains(@class, 'trending-comparison')]")
    caption = along.xpath("./caption")[0].text_content()
    assert caption.startswith("A: nic 25ge2p1xxv710, ") and " vs B: nic 100ge2p1e810cq, " in caption
    ((name, mean_a, _, runs_a, mean_b, *_),) = cells(along)
    assert name == "2n-icx avf 64b 2t1c ethip4-ip4base-mrr"
    assert (mean_a, runs_a) == ("10.000", "7")  # the last week: builds 6 to 12
    assert float(mean_b) > 20.0
    links = along.xpath("following::p[1]//a")
    assert [link.text_content() for link in links] == [
        "Download this table as CSV",
        "the raw samples",
    ]
    samples = list(csv.reader((Path(app.outdir) / links[1].get("href")).open()))
    assert samples[0] == ["Test Case", "Testbed", "Side", "Value [pps]"]
    assert {row[2] for row in samples[1:]} == {"A", "B"} and len(samples) == 1 + 14
    # releases: one row per test, worst change first: the E810 rose by a tenth in 26.06
    assert [(row[0], row[7]) for row in cells(releases)] == [
        ("2n-icx 25ge2p1xxv710 avf 64b 2t1c ethip4-ip4base-mrr", "0.00"),
        ("2n-icx 100ge2p1e810cq avf 64b 2t1c ethip4-ip4base-mrr", "10.00"),
    ]
    assert ":period: goes with :compare: of a dimension" in app.warning.getvalue()
