"""The configuration page is generated from the declarations, and says so when it lags."""

from __future__ import annotations

from pathlib import Path

import lxml.html
from sphinx.cmd.build import build_main

from sphinxcontrib_trending.conf.checks import POLICY_KEYS
from sphinxcontrib_trending.conf.sources import SOURCE_KEYS
from sphinxcontrib_trending.settings import OPTIONS
from sphinxcontrib_trending.sphinxext.warnings import SUBTYPES

EXT = Path(__file__).resolve().parents[1] / "docs" / "_ext"


def build(tmp_path: Path, documented: list[str]) -> tuple[int, str, lxml.html.HtmlElement]:
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(EXT)!r})\nextensions = ['trending_reference']\n"
    )
    entries = "".join(f".. trending-option:: {name}\n\n   Prose.\n\n" for name in documented)
    (src / "index.rst").write_text(
        f"Config\n======\n\n.. trending-options::\n\n{entries}.. trending-warning-subtypes::\n"
    )
    warnings = tmp_path / "warnings.txt"
    code = build_main(["-q", "-b", "html", "-w", str(warnings), str(src), str(tmp_path / "out")])
    page = lxml.html.parse(str(tmp_path / "out" / "index.html")).getroot()
    return code, warnings.read_text(), page


def test_every_option_and_subtype_is_listed_from_the_declarations(tmp_path: Path) -> None:
    code, warnings, page = build(tmp_path, list(OPTIONS))
    assert (code, warnings) == (0, "")
    rows = page.xpath("//table//tbody/tr")
    assert [row.xpath("./td[1]")[0].text_content().strip() for row in rows] == list(OPTIONS)
    short = next(row for row in rows if "trending_short_term_days" in row.text_content())
    assert [td.text_content().strip() for td in short.xpath("./td")][1:4] == [
        "float",
        "7",
        "re-reads the pages",
    ]
    entries = page.xpath("//dl[contains(@class, 'confval')]/dt")
    assert [dt.text_content().strip(" ¶\n") for dt in entries] == list(OPTIONS)
    terms = page.xpath("(//dl)[last()]/dt")
    assert [dt.text_content().strip() for dt in terms] == list(SUBTYPES)


def test_an_undocumented_option_warns(tmp_path: Path) -> None:
    _, warnings, _ = build(tmp_path, [name for name in OPTIONS if name != "trending_sbps"])
    assert "option trending_sbps has no trending-option entry in the docs" in warnings


def test_the_configuration_page_explains_every_source_and_policy_key() -> None:
    page = (EXT.parent / "configuration.rst").read_text()
    for key in (*SOURCE_KEYS, *POLICY_KEYS):
        assert f"``{key}``" in page, key
    assert page.count(".. trending-option:: ") == len(OPTIONS)
