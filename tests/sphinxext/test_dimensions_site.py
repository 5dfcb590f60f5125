"""A site of CSIT-named tests on two NICs: rows, legends and groups tell them apart."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import lxml.html
from sphinx.testing.util import SphinxTestApp

from tests.sphinxext import built_html

CASE = "{frame}-{cores}-{driver}ethip4-ip4base-mrr"
SUITE = "tests.vpp.perf.ip4.2n1l-{nic}-{driver}ethip4-ip4base-mrr"
VARIANTS = [
    # (nic, driver part of the names, frame, cores tag, level)
    ("100ge2p1e810cq", "avf-", "64b", "2T1C", 20e6),
    ("10ge2p1x710", "avf-", "64b", "2T1C", 10e6),
    ("100ge2p1e810cq", "avf-", "1518b", "2T1C", 8e6),
    ("100ge2p1e810cq", "avf-", "64b", "4T2C", 30e6),
]

PAGES = """Dimensions
==========

Dashboard
---------

.. trending-dashboard::
   :source: mrr

Per NIC and cores
-----------------

.. trending-dashboard::
   :source: mrr
   :group-by: nic, cores

Failed
------

.. trending-failed-tests::
   :source: mrr
   :window: 100

E810 at 2T1C across frame sizes
-------------------------------

.. trending-graph::
   :source: mrr
   :filter: nic=*e810* and cores=2t1c
   :trials:

Overridden
----------

.. trending-dashboard::
   :source: by-tag
   :group-by: nic
"""


def _rows() -> list[dict]:
    rows = []
    for build in range(1, 11):
        for nic, driver, frame, cores, level in VARIANTS:
            failed = nic == "10ge2p1x710" and build == 10
            rows.append(
                {
                    "job": "csit-vpp-perf-mrr-daily-master-2n-icx",
                    "build": str(build),
                    "time": f"2026-03-{build:02d}T00:00:00Z",
                    "test": f"{SUITE.format(nic=nic, driver=driver)}."
                    f"{CASE.format(frame=frame, cores=cores.lower(), driver=driver)}",
                    "name": CASE.format(frame=frame, cores=cores.lower(), driver=driver),
                    "tags": ["MRR", cores, f"NIC_Intel-{nic.rpartition('p1')[2].upper()}"],
                    "status": "FAIL" if failed else "PASS",
                    "metric": "mrr",
                    "unit": "pps",
                    "values": [] if failed else [level - 1e4, level + 1e4],
                    "testbed": "2n-icx",
                }
            )
    return rows


def _site(tmp_path: Path, make_app: Callable[..., SphinxTestApp]) -> SphinxTestApp:
    srcdir = tmp_path / "dimensions"
    srcdir.mkdir()
    (srcdir / "conf.py").write_text(
        'extensions = ["sphinxcontrib_trending"]\n'
        "trending_sources = {\n"
        '    "mrr": {"paths": ["runs.jsonl"], "format": "jsonl"},\n'
        '    "by-tag": {"paths": ["runs.jsonl"], "format": "jsonl",'
        ' "dimensions": {"nic": "tag:NIC_"}},\n'
        "}\n"
    )
    (srcdir / "index.rst").write_text(PAGES)
    (srcdir / "runs.jsonl").write_text("".join(json.dumps(row) + "\n" for row in _rows()))
    app = make_app("html", srcdir=srcdir)
    app.build()
    return app


def _tables(page: lxml.html.HtmlElement, section: str) -> list[tuple[str, list[str]]]:
    found = []
    for table in page.xpath(f"//section[@id='{section}']//table"):
        caption = "".join(c.text_content() for c in table.xpath("./caption")).rstrip("¶")
        names = [row.xpath("./td")[0].text_content().strip() for row in table.xpath("./tbody/tr")]
        found.append((caption, sorted(names)))
    return found


def test_rows_legends_and_groups_carry_the_dimensions(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp]
) -> None:
    app = _site(tmp_path, make_app)
    page = built_html.page(app.outdir, "index")
    e810 = "2n-icx 100ge2p1e810cq avf"
    # the same case name on two NICs: two distinct rows
    assert _tables(page, "dashboard") == [
        (
            "Testbed 2n-icx, cores 2T1C",
            sorted(
                [
                    f"{e810} 1518b 2t1c ethip4-ip4base-mrr",
                    f"{e810} 64b 2t1c ethip4-ip4base-mrr",
                    "2n-icx 10ge2p1x710 avf 64b 2t1c ethip4-ip4base-mrr",
                ]
            ),
        ),
        ("Testbed 2n-icx, cores 4T2C", [f"{e810} 64b 4t2c ethip4-ip4base-mrr"]),
    ]
    assert _tables(page, "per-nic-and-cores") == [
        (
            "Nic 100ge2p1e810cq, cores 2T1C",
            [f"{e810} 1518b 2t1c ethip4-ip4base-mrr", f"{e810} 64b 2t1c ethip4-ip4base-mrr"],
        ),
        ("Nic 100ge2p1e810cq, cores 4T2C", [f"{e810} 64b 4t2c ethip4-ip4base-mrr"]),
        ("Nic 10ge2p1x710, cores 2T1C", ["2n-icx 10ge2p1x710 avf 64b 2t1c ethip4-ip4base-mrr"]),
    ]
    assert _tables(page, "failed") == [
        ("Testbed 2n-icx", ["2n-icx 10ge2p1x710 avf 64b 2t1c ethip4-ip4base-mrr"])
    ]
    (plot,) = page.xpath("//section[@id='e810-at-2t1c-across-frame-sizes']//div[@data-figure]")
    data = built_html.figures(app.outdir, "index")[plot.get("data-figure")]["data"]
    legends = {trace["name"] for trace in data if "showlegend" not in trace}
    clouds = [trace for trace in data if trace["name"].endswith(" trials")]
    assert len(clouds) == 2 and all(len(cloud["y"]) == 20 for cloud in clouds)
    assert legends == {
        f"{e810} 1518b 2t1c ethip4-ip4base-mrr",
        f"{e810} 64b 2t1c ethip4-ip4base-mrr",
    }
    # the source's own rule: the NIC from the NIC_ tag
    assert [caption for caption, _ in _tables(page, "overridden")] == [
        "Nic intel-e810cq",
        "Nic intel-x710",
    ]
