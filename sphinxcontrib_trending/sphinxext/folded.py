"""Long failure messages folded in table cells: the first line shown, the rest on a click.

In HTML a long message becomes a ``<details>`` element whose summary is its
first line, cut short; every other builder (LaTeX, text, ...) gets the whole
message as a paragraph, substituted at ``doctree-resolved`` so builders this
module has never heard of are covered too.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.writers.html5 import HTML5Translator

FOLD_LENGTH = 120
"""Messages longer than this, or of more than one line, are folded."""


class trending_folded(nodes.General, nodes.Element):
    """Attributes: ``summary`` (the first line, cut short) and ``text`` (the whole message)."""


def needs_folding(text: str) -> bool:
    return len(text) > FOLD_LENGTH or "\n" in text.strip()


def summary_of(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= FOLD_LENGTH else line[: FOLD_LENGTH - 1] + "…"


def fold_column(box: nodes.Element, column: int) -> None:
    """Fold the long cells of ``column`` in the body rows of the tables inside ``box``."""
    for body in box.findall(nodes.tbody):
        for row in body.children:
            paragraph = row[column][0]
            text = paragraph.astext()
            if needs_folding(text):
                folded = trending_folded(summary=summary_of(text), text=text)
                row[column].replace(paragraph, folded)


def visit_folded_html(translator: HTML5Translator, node: trending_folded) -> None:
    translator.body.append(
        f'<details class="trending-message"><summary>{translator.encode(node["summary"])}'
        f"</summary><pre>{translator.encode(node['text'])}</pre></details>"
    )
    raise nodes.SkipNode


def _unfold_elsewhere(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format == "html":
        return
    for node in list(doctree.findall(trending_folded)):
        node.replace_self(nodes.paragraph(node["text"], node["text"]))


def register(app: Sphinx) -> None:
    app.add_node(trending_folded, html=(visit_folded_html, None))
    app.connect("doctree-resolved", _unfold_elsewhere)
