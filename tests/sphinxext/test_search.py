"""The site's search box: an index of every graphed series, pointing at its anchor."""

from __future__ import annotations

import json
from pathlib import Path

from sphinxcontrib_trending.sphinxext.search import INDEX_CALLBACK, INDEX_FILE
from tests.sphinxext import built_html, datasets
from tests.sphinxext.conftest import SiteFactory


def _index(outdir: Path) -> list[list[str]]:
    text = (outdir / INDEX_FILE).read_text()
    assert text.startswith(f"{INDEX_CALLBACK}(") and text.endswith(");\n")
    return json.loads(text[len(INDEX_CALLBACK) + 1 : -3])


def test_the_index_lists_every_graphed_series_at_its_anchor(site: SiteFactory) -> None:
    app = site()
    app.build()
    out = Path(app.outdir)
    entries = _index(out)
    graphs = built_html.page(out, "graphs")
    anchors = {anchor for anchor in graphs.xpath("//@id") if anchor.startswith("trending-perf-")}
    assert {href for *_, href in entries} == {f"graphs.html#{anchor}" for anchor in anchors}
    by_name = {title: (detail, metric, source) for title, detail, metric, source, _ in entries}
    assert by_name["regress"] == ("testbed=2n-skx cores=2T1C test_type=mrr", "mrr", "perf")
    assert datasets.EVIL_NAME in by_name  # kept as data; the browser shows it as text
    box = built_html.page(out, "find").xpath("//div[@class='trending-search']")[0]
    assert (box.get("data-index"), box.get("data-root")) == (f"./{INDEX_FILE}", "./")
    assert box.xpath(".//input[@type='search']")


def test_a_box_in_a_folder_finds_the_index_and_links_from_the_root(site: SiteFactory) -> None:
    app = site()
    folder = Path(app.srcdir) / "more"
    folder.mkdir()
    (folder / "find.rst").write_text("Deeper\n======\n\n.. trending-search::\n   :placeholder: p\n")
    (Path(app.srcdir) / "index.rst").write_text(
        (Path(app.srcdir) / "index.rst").read_text() + "   more/find\n"
    )
    app.build()
    box = built_html.page(app.outdir, "more/find").xpath("//div[@class='trending-search']")[0]
    assert (box.get("data-index"), box.get("data-root")) == (f"../{INDEX_FILE}", "../")
    assert box.xpath(".//input/@placeholder") == ["p"]


def test_no_search_box_no_index_and_other_builders_leave_the_box_out(site: SiteFactory) -> None:
    app = site()
    (Path(app.srcdir) / "find.rst").write_text("Find\n====\n\nNo box.\n")
    app.build()
    assert not (Path(app.outdir) / INDEX_FILE).exists()
    text = site(builder="text")
    text.build()
    assert "Search tests" not in (Path(text.outdir) / "find.txt").read_text()


def test_a_parallel_build_writes_the_same_index(site: SiteFactory, tmp_path: Path) -> None:
    serial = site()
    serial.build()
    parallel = site(parallel=2, builddir=tmp_path / "parallel")
    parallel.build()
    assert _index(Path(parallel.outdir)) == _index(Path(serial.outdir))
