"""A CSV download link under every trending table, in the HTML builders.

``table_node`` stores each table's CSV on its box at read time; here, when
the page is resolved, the CSV becomes a file beside the page and a link to
it.  Every directive that renders through ``table_node`` gets this for free.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from sphinxcontrib_trending.sphinxext.page_files import interactive, write_page_file

CSV_ATTRIBUTE = "trending_csv"
SAMPLES_ATTRIBUTE = "trending_samples_csv"
"""A second download some tables carry: the raw samples behind their statistics."""


def _link(uris: list[tuple[str, str]]) -> nodes.paragraph:
    paragraph = nodes.paragraph(classes=["trending-downloads"])
    for number, (text, uri) in enumerate(uris):
        if number:
            paragraph += nodes.Text(" · ")
        paragraph += nodes.reference(text, text, refuri=uri, classes=["trending-csv"])
    return paragraph


def add_csv_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    boxes = [node for node in doctree.findall(nodes.container) if CSV_ATTRIBUTE in node]
    for number, box in enumerate(boxes, start=1):
        text = box.attributes.pop(CSV_ATTRIBUTE)
        samples = box.attributes.pop(SAMPLES_ATTRIBUTE, None)
        if interactive(app):
            uris = [
                (
                    "Download this table as CSV",
                    write_page_file(app, docname, f"table-{number}.csv", text),
                )
            ]
            if samples is not None:
                name = f"table-{number}.samples.csv"
                uris.append(("the raw samples", write_page_file(app, docname, name, samples)))
            box.parent.insert(box.parent.index(box) + 1, _link(uris))


def register(app: Sphinx) -> None:
    app.connect("doctree-resolved", add_csv_links)
