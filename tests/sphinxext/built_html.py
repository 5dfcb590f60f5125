"""Reading a built test site's HTML pages and table cells, for the site tests."""

from __future__ import annotations

import json
import re
from pathlib import Path

import lxml.html

DATA_CALL = re.compile(r'^trendingFigure\("([^"]+)",(.*)\);\n$', re.DOTALL)


def page(outdir: str | Path, name: str) -> lxml.html.HtmlElement:
    return lxml.html.fromstring((Path(outdir) / f"{name}.html").read_bytes())


def cells(table: lxml.html.HtmlElement) -> list[list[str]]:
    """The stripped text of each body row's data cells."""
    return [
        [td.text_content().strip() for td in tr.xpath("./td")] for tr in table.xpath("./tbody/tr")
    ]


def figures(outdir: str | Path, name: str) -> dict[str, dict]:
    """Each graph's figure on a page, by figure id, read from the data file it loads."""
    html = page(outdir, name)
    folder = (Path(outdir) / name).parent
    result = {}
    for plot in html.xpath("//div[@class='trending-graph-plot']"):
        text = (folder / plot.get("data-src")).read_text()
        call = DATA_CALL.match(text)
        assert call is not None and call.group(1) == plot.get("data-figure"), text[:200]
        result[call.group(1)] = json.loads(call.group(2))
    return result
