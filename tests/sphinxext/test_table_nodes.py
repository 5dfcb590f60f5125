"""A trending table is one node until written: HTML straight from its data, the
docutils table for every other builder, and the same markup either way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from docutils import nodes

from sphinxcontrib_trending.sphinxext import table_nodes
from tests.sphinxext.conftest import SiteFactory
from tests.sphinxext.datasets import JOB, TESTBED, build_time

HOSTILE = 'q"uote & <b>bold</b> @host'


def _with_hostile_test(srcdir: Path) -> None:
    """One more test whose name holds every character HTML escapes (and docutils' ``@``)."""
    row = {
        "job": JOB,
        "build": "30",
        "time": build_time(30).isoformat(),
        "test": "tests.perf.hostile",
        "name": HOSTILE,
        "tags": ["MRR"],
        "status": "PASS",
        "message": "",
        "metric": "mrr",
        "unit": "pps",
        "values": [1e6, 1.1e6],
        "testbed": TESTBED,
    }
    (srcdir / "data" / "hostile.jsonl").write_text(json.dumps(row) + "\n")


def _always_expanded(app: object, doctree: nodes.document, docname: str) -> None:
    for node in list(doctree.findall(table_nodes.trending_table)):
        node.replace_self(table_nodes.expanded(node))


@pytest.mark.parametrize("page", ["dashboard", "failed"])
def test_html_is_what_sphinx_writes_for_the_docutils_table(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch, page: str
) -> None:
    app = site()
    _with_hostile_test(Path(app.srcdir))
    app.build()
    written = (Path(app.outdir) / f"{page}.html").read_text(encoding="utf-8")
    assert (
        "trending-table" in written
        and "&quot;uote &amp; &lt;b&gt;bold" in written.replace("q&quot;", "&quot;")
        # the hostile test's one build is too new for a change: its cells say why
        and '<abbr title="No measured run is older than the short-term window' in written
    ) or page == "failed"
    monkeypatch.setattr(table_nodes, "_settle", _always_expanded)
    again = site()  # registers the extension anew, with docutils tables for HTML too
    again.build(force_all=True)
    assert (Path(again.outdir) / f"{page}.html").read_text(encoding="utf-8") == written


def test_other_builders_get_the_docutils_table(site: SiteFactory) -> None:
    app = site(builder="text")
    app.build()
    text = (Path(app.outdir) / "dashboard.txt").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| regress ")]
    assert len(rows) == 1 and rows[0].count("|") == 10  # a grid table: 9 columns


def test_a_page_s_doctree_keeps_the_table_as_data(site: SiteFactory) -> None:
    app = site()
    app.build()
    doctree = app.env.get_doctree("dashboard")
    (table,) = doctree.findall(table_nodes.trending_table)
    assert not list(doctree.findall(nodes.entry))
    assert {cells[0] for cells, _key, _classes in table["rows"]} >= {"regress", "stable"}
    assert table["ids"], "a captioned table has an id for its permalink"
