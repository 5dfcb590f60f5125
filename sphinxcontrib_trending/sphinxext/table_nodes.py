"""A trending table as one node until it is written.

A dashboard over CSIT's 20,000 series is a table of 160,000 cells: as
docutils nodes (entry, paragraph, text) half a million of them, which
every Sphinx transform walks when the page is read and again when it is
written, and which the environment pickles in between.  That was a fifth
of a full-size build.  So a table is a :class:`trending_table` holding
its cells as plain data: HTML builders write it straight from them
(:func:`visit_table_html`, the same markup docutils wrote for the table
it replaces); every other builder gets that docutils table back at
``doctree-resolved`` (:func:`expanded`), so LaTeX, text and builders this
module has never heard of render it as before.

What HTML loses is the table's words in Sphinx's search index: test names
are found on the graph pages, whose headings name them.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.locale import _
from sphinx.writers.html5 import HTML5Translator

from sphinxcontrib_trending.analysis.identity import SeriesRef, SeriesTarget
from sphinxcontrib_trending.render.table import NUMBER, Table
from sphinxcontrib_trending.render.visible import visible
from sphinxcontrib_trending.sphinxext.env_records import anchor_owner
from sphinxcontrib_trending.sphinxext.folded import needs_folding, summary_of
from sphinxcontrib_trending.sphinxext.page_files import interactive

Row = tuple[tuple[str, ...], str | None, tuple[str, ...]]
"""A body row: its cells (as shown), the series its first cell links to, its classes."""


class trending_link(nodes.Inline, nodes.TextElement):
    """A test name to be linked to its graph; ``source`` and ``key`` name the test."""


class trending_table(nodes.General, nodes.Element):
    """Attributes: ``header`` (cells), ``rows`` (:data:`Row`), ``caption``, ``source``
    (whose series the rows link to), ``kinds`` (each column's
    :data:`~sphinxcontrib_trending.render.table.NUMBER`, ``LABEL`` or ``TEXT``),
    ``reasons`` (per row, why its cells hold no value, see
    :attr:`~sphinxcontrib_trending.render.table.Row.reasons`), ``links`` (per row,
    its cells' addresses, see :attr:`~sphinxcontrib_trending.render.table.Row.links`),
    ``fold`` (the
    column whose long cells fold, or None) and, once resolved for an
    interactive builder, ``hrefs`` (each row's link, or None)."""


def table_data_node(table: Table, source: str, classes: list[str]) -> trending_table:
    """The table as one node (a captioned one gets its id when the page is read)."""
    return trending_table(
        header=tuple(table.header),
        rows=[
            (tuple(visible(cell) for cell in row.cells), row.link_key, tuple(row.classes))
            for row in table.rows
        ],
        caption=visible(table.caption) if table.caption else "",
        source=source,
        kinds=table.column_kinds(),
        reasons=[row.reasons for row in table.rows],
        links=[row.links for row in table.rows],
        fold=None,
        classes=classes,
    )


def fold_column(box: nodes.Element, column: int) -> None:
    """Fold the long cells of ``column`` in the tables inside ``box`` (in HTML; see
    :mod:`~sphinxcontrib_trending.sphinxext.folded`)."""
    for node in box.findall(trending_table):
        node["fold"] = column


def _name_captioned(app: Sphinx, doctree: nodes.document) -> None:
    """An id for each captioned table, for its permalink, as Sphinx gives a docutils one."""
    for node in doctree.findall(trending_table):
        if node["caption"] and not node["ids"]:
            doctree.set_id(node)


def cell_classes(kind: str) -> list[str]:
    """The class of a column's cells: numbers, the common case, go without one."""
    return [] if kind == NUMBER else [f"trending-{kind}"]


def link_targets(node: trending_table) -> set[SeriesTarget]:
    return {SeriesTarget(node["source"], ref) for _cells, ref, _classes in node["rows"] if ref}


def expanded(node: trending_table) -> nodes.table:
    """The docutils table the node stands for, links still to resolve, nothing folded."""
    table = nodes.table(classes=node["classes"], ids=node["ids"], support_smartquotes=False)
    if node["caption"]:
        table += nodes.title(node["caption"], node["caption"])
    group = nodes.tgroup(cols=len(node["header"]))
    table += group
    for index in range(len(node["header"])):
        group += nodes.colspec(colwidth=40 if index == 0 else 10)
    head = nodes.thead()
    group += head
    head += _row(node["header"])
    body = nodes.tbody()
    group += body
    rows = zip(node["rows"], node["reasons"], node["links"], strict=True)
    for (cells, key, classes), reasons, links in rows:
        first: nodes.Node = nodes.Text(cells[0])
        if key is not None:
            first = trending_link(cells[0], cells[0], source=node["source"], key=key)
        body += _row(cells, first, list(classes), node["kinds"], reasons, links)
    return table


def _row(
    cells: tuple[str, ...],
    first_cell: nodes.Node | None = None,
    classes: list[str] | None = None,
    kinds: tuple[str, ...] = (),
    reasons: tuple[str, ...] = (),
    links: tuple[str | None, ...] = (),
) -> nodes.row:
    """A row; ``kinds`` given (body rows), each entry gets its column's class."""
    row = nodes.row(classes=classes or [])
    for index, text in enumerate(cells):
        entry = nodes.entry(classes=cell_classes(kinds[index]) if kinds else [])
        paragraph = nodes.paragraph()
        reason = reasons[index] if reasons else ""
        link = links[index] if links else None
        if index == 0 and first_cell is not None:
            paragraph += first_cell
        elif link:
            paragraph += nodes.reference(text, text, refuri=link)
        elif reason:
            paragraph += nodes.abbreviation(text, text, explanation=reason)
        else:
            paragraph += nodes.Text(text)
        entry += paragraph
        row += entry
    return row


def visit_table_html(translator: HTML5Translator, node: trending_table) -> None:
    """The markup Sphinx's HTML writer gives the expanded table, written in one go."""
    styles = [style.strip(" \t\n") for style in translator.settings.table_style.split(",")]
    classes = " ".join(["docutils", *styles, "align-default"])
    out = [translator.starttag(node, "table", CLASS=classes)]
    if node["caption"]:
        out.append(f'<caption><span class="caption-text">{translator.encode(node["caption"])}')
        out.append("</span>")
        translator.body.extend(out)
        out = []
        translator.add_permalink_ref(node, _("Link to this table"))
        out.append("</caption>\n")
    encode = translator.encode
    head = "".join(f'<th class="head"><p>{encode(cell)}</p></th>\n' for cell in node["header"])
    out.append(f'<thead>\n<tr class="row-odd">{head}</tr>\n</thead>\n<tbody>\n')
    hrefs = node.get("hrefs") or [None] * len(node["rows"])
    fold = node["fold"]
    opening = [
        f'<td class="{" ".join(cell_classes(kind))}">' if cell_classes(kind) else "<td>"
        for kind in node["kinds"]
    ]
    rows = zip(node["rows"], hrefs, node["reasons"], node["links"], strict=True)
    for number, ((cells, _key, classes), href, reasons, links) in enumerate(rows):
        parity = "row-even" if number % 2 == 0 else "row-odd"
        out.append(f'<tr class="{translator.attval(" ".join([*classes, parity]))}">')
        for column, cell in enumerate(cells):
            td = opening[column]
            reason = reasons[column] if reasons else ""
            if column == fold and needs_folding(cell):
                out.append(
                    f'{td}<details class="trending-message"><summary>'
                    f"{encode(summary_of(cell))}</summary><pre>{encode(cell)}</pre></details></td>\n"
                )
            elif column == 0 and href is not None:
                out.append(
                    f'{td}<p><a class="reference internal" href="{translator.attval(href)}">'
                    f"{encode(cell)}</a></p></td>\n"
                )
            elif links and links[column]:
                address = translator.attval(links[column])
                out.append(
                    f'{td}<p><a class="reference external" href="{address}">'
                    f"{encode(cell)}</a></p></td>\n"
                )
            elif reason:
                title = translator.attval(reason)
                out.append(f'{td}<p><abbr title="{title}">{encode(cell)}</abbr></p></td>\n')
            else:
                out.append(f"{td}<p>{encode(cell)}</p></td>\n")
        out.append("</tr>\n")
    out.append("</tbody>\n</table>\n")
    translator.body.append("".join(out))
    raise nodes.SkipNode


def _settle(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Other builders get the docutils table; interactive HTML ones, the rows' links."""
    if app.builder.format != "html":
        for node in list(doctree.findall(trending_table)):
            node.replace_self(expanded(node))
        return
    if not interactive(app):
        return
    # a dashboard links thousands of rows to a handful of graph pages
    page_uris: dict[str, str] = {}
    for node in doctree.findall(trending_table):
        node["hrefs"] = [
            _href(app, docname, node["source"], key, page_uris) for _c, key, _l in node["rows"]
        ]


def _href(
    app: Sphinx, docname: str, source: str, ref: SeriesRef | None, page_uris: dict[str, str]
) -> str | None:
    """The link to a row's graph; ``page_uris`` keeps each graph page's relative URL."""
    target = None if ref is None else anchor_owner(app.env, SeriesTarget(source, ref))
    if target is None:
        return None
    target_doc, anchor = target
    uri = page_uris.get(target_doc)
    if uri is None:
        uri = page_uris[target_doc] = app.builder.get_relative_uri(docname, target_doc)
    return uri + "#" + anchor


def is_trending_table(node: Any) -> bool:
    return isinstance(node, trending_table) or (
        isinstance(node, nodes.table) and "trending-table" in node["classes"]
    )


def register(app: Sphinx) -> None:
    app.add_node(trending_table, html=(visit_table_html, None))
    app.add_node(trending_link)
    # before the links of expanded tables are resolved (nodes.resolve, priority 500)
    app.connect("doctree-read", _name_captioned)
    app.connect("doctree-resolved", _settle, priority=400)
