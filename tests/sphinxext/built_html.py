"""Reading a built test site's HTML pages and table cells, for the site tests."""

from __future__ import annotations

from pathlib import Path

import lxml.html


def page(outdir: str | Path, name: str) -> lxml.html.HtmlElement:
    return lxml.html.fromstring((Path(outdir) / f"{name}.html").read_bytes())


def cells(table: lxml.html.HtmlElement) -> list[list[str]]:
    """The stripped text of each body row's data cells."""
    return [
        [td.text_content().strip() for td in tr.xpath("./td")] for tr in table.xpath("./tbody/tr")
    ]
