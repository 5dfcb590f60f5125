"""News and failed-tests tables link the builds and versions they name, as conf.py says."""

from __future__ import annotations

from pathlib import Path

from tests.sphinxext import built_html, datasets
from tests.sphinxext.conftest import SiteFactory

BUILDS = "https://jenkins.example.org/job/{job}/{build}/"
VERSIONS = "https://git.example.org/tag/{version}"


def _links(outdir: str, page: str, css: str) -> list[tuple[str, str]]:
    html = built_html.page(outdir, page)
    return [
        (anchor.text_content(), anchor.get("href"))
        for anchor in html.xpath(
            f"//table[contains(@class, '{css}')]//td[position() > 1]//a[@href]"
        )
    ]


def test_builds_and_versions_link_to_their_pages(site: SiteFactory) -> None:
    app = site(confoverrides={"trending_build_url": BUILDS, "trending_version_url": VERSIONS})
    (Path(app.srcdir) / "news.rst").write_text("News\n====\n\n.. trending-news::\n")
    (Path(app.srcdir) / "index.rst").write_text(
        (Path(app.srcdir) / "index.rst").read_text() + "   news\n"
    )
    app.build()
    failed = _links(app.outdir, "failed", "trending-failed-tests")
    assert failed, "the failed-tests table links nothing"
    for text, href in failed:
        if text.startswith(datasets.JOB):
            build = text.rsplit("/", 1)[1]
            assert href == f"https://jenkins.example.org/job/{datasets.JOB}/{build}/"
        else:
            assert href == f"https://git.example.org/tag/{text}"  # "~" needs no quoting
    kinds = {href.split("/")[2] for _text, href in _links(app.outdir, "news", "trending-news")}
    assert kinds == {"jenkins.example.org", "git.example.org"}


def test_without_templates_nothing_links_but_the_names(site: SiteFactory) -> None:
    app = site()
    app.build()
    assert _links(app.outdir, "failed", "trending-failed-tests") == []


def test_other_builders_keep_the_links(site: SiteFactory) -> None:
    app = site("trending", "latex", confoverrides={"trending_build_url": BUILDS})
    app.build()
    tex = next(Path(app.outdir).glob("*.tex")).read_text()
    assert f"https://jenkins.example.org/job/{datasets.JOB}/" in tex
