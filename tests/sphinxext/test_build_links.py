"""Tables and graphs link the builds, versions and change ranges they name, as conf.py says."""

from __future__ import annotations

import json
from pathlib import Path

from tests.sphinxext import built_html, datasets
from tests.sphinxext.conftest import SiteFactory

BUILDS = "https://jenkins.example.org/job/{job}/{build}/"
VERSIONS = "https://git.example.org/tag/{version}"
COMPARE = "https://git.example.org/compare/{last_good}...{first_bad}"
HOSTILE_VERSION = '24"><script>alert(2)</script>&x'
QUOTED = "24%22%3E%3Cscript%3Ealert%282%29%3C%2Fscript%3E%26x"


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


def _hostile_site(site: SiteFactory):
    """The test site with build 24 (the last before the regression) running ``HOSTILE_VERSION``."""
    app = site(
        confoverrides={
            "trending_build_url": BUILDS,
            "trending_version_url": VERSIONS,
            "trending_compare_url": COMPARE,
        }
    )
    data = Path(app.srcdir) / "data" / "results.jsonl"
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    for row in rows:
        if row["build"] == "24":
            row["version"] = HOSTILE_VERSION
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    (Path(app.srcdir) / "news.rst").write_text("News\n====\n\n.. trending-news::\n")
    index = Path(app.srcdir) / "index.rst"
    index.write_text(index.read_text() + "   news\n")
    app.build()
    return app


def test_ranges_link_to_the_commits_between_quoted_and_escaped(site: SiteFactory) -> None:
    app = _hostile_site(site)
    compare = f"https://git.example.org/compare/{QUOTED}...26.02-rc0~25"
    shown = f"{HOSTILE_VERSION} .. 26.02-rc0~25"
    for page, css in (("dashboard", "trending-dashboard"), ("news", "trending-news")):
        raw = (Path(app.outdir) / f"{page}.html").read_text()
        assert "<script>alert(2)" not in raw, page
        assert (shown, compare) in _links(app.outdir, page, css), page
    progress = (
        "26.02-rc0~26 .. 26.02-rc0~27",
        COMPARE.format(last_good="26.02-rc0~26", first_bad="26.02-rc0~27"),
    )
    assert progress in _links(app.outdir, "dashboard", "trending-dashboard")


def test_graph_points_open_their_builds_and_anomalies_their_ranges(site: SiteFactory) -> None:
    app = _hostile_site(site)
    figures = built_html.figures(app.outdir, "graphs").values()
    regress = next(figure for figure in figures if figure["data"][0]["name"] == "regress")
    runs, _trend, anomalies = regress["data"]
    assert runs["trending_links"][0] == f"https://jenkins.example.org/job/{datasets.JOB}/1/"
    assert anomalies["trending_links"] == [
        f"https://git.example.org/compare/{QUOTED}...26.02-rc0~25"
    ]
    graphs = built_html.page(app.outdir, "graphs")
    plots = graphs.xpath("//div[@class='trending-graph-plot']")
    sources = {plot.get(name) for plot in plots for name in ("data-src", "data-runs")}
    assert any(source.endswith(".trending-runs.js") for source in sources)  # the shared texts
    for source in sources:
        assert "<script>alert(2)" not in (Path(app.outdir) / source).read_text()
