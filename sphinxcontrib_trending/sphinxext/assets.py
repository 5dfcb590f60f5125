"""Static assets: our CSS everywhere, plotly.js only where a graph is drawn.

trending.js (table filters, graph drawing) goes on pages with a trending
table or graph.

plotly.js is about 4.5 MB, so it is added per page (like MathJax) and, by
default, copied from the installed ``plotly`` package so the site works
offline.  ``trending_plotlyjs = "cdn"`` or a URL trades that for a download.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config

from sphinxcontrib_trending.sphinxext.config import settings_of
from sphinxcontrib_trending.sphinxext.nodes import trending_graph, trending_graphs
from sphinxcontrib_trending.sphinxext.page_files import interactive
from sphinxcontrib_trending.sphinxext.search import trending_search
from sphinxcontrib_trending.sphinxext.table_nodes import is_trending_table

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
BUNDLED_PLOTLY = "trending/plotly.min.js"


def _plotly_source() -> Path:
    """The installed package's copy, found without importing plotly: every build asks."""
    found = importlib.util.find_spec("plotly")
    if found is None or found.origin is None:
        raise ModuleNotFoundError("plotly is not installed", name="plotly")
    return Path(found.origin).resolve().parent / "package_data" / "plotly.min.js"


def _plotly_url(choice: str) -> str:
    if choice == "bundled":
        return BUNDLED_PLOTLY
    if choice == "cdn":
        from plotly.offline import get_plotlyjs_version

        return f"https://cdn.plot.ly/plotly-{get_plotlyjs_version()}.min.js"
    return choice


def _add_static_path(app: Sphinx, config: Config) -> None:
    config.html_static_path.append(str(STATIC_DIR))


def _page_assets(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if app.builder.format != "html" or not isinstance(doctree, nodes.document):
        return
    if next(doctree.findall(_is_graph), None) is not None:
        app.add_js_file(_plotly_url(settings_of(app.config).plotlyjs), priority=400)
    elif next(doctree.findall(is_trending_table), None) is None and not any(
        doctree.findall(trending_search)
    ):
        return
    app.add_js_file("trending.js", priority=500)


def _is_graph(node: nodes.Node) -> bool:
    return isinstance(node, (trending_graph, trending_graphs))


def _copy_plotly(app: Sphinx) -> None:
    """Copy plotly.js when the build starts, before any page names it.

    Sphinx marks a static file with its checksum (``plotly.min.js?v=...``)
    when the file is there as the page is written.  Copied at the end of the
    build, it was there only for a rebuild: a cold build's graph pages named
    it without the checksum and a rebuild's with it.
    """
    if not interactive(app):
        return
    if settings_of(app.config).plotlyjs != "bundled":
        return
    source = _plotly_source()
    target = Path(app.outdir) / "_static" / BUNDLED_PLOTLY
    if target.exists() and target.stat().st_size == source.stat().st_size:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def register(app: Sphinx) -> None:
    app.connect("config-inited", _add_static_path)
    app.add_css_file("trending.css")
    app.connect("html-page-context", _page_assets)
    app.connect("builder-inited", _copy_plotly)
