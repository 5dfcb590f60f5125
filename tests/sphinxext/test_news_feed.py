"""The news page's Atom feed: valid Atom, one entry per event, linked and escaped.

The site's data (:mod:`tests.sphinxext.datasets`) has three events in the
last week: ``flaky`` fails from build 30, ``progress`` rises at build 27 and
``regress`` drops at build 25.
"""

from __future__ import annotations

import json
from pathlib import Path

from lxml import etree

from tests.sphinxext.built_html import page as built_page
from tests.sphinxext.conftest import SiteFactory
from tests.sphinxext.datasets import EVIL_NAME, TESTBED, build_time

ATOM = {"a": "http://www.w3.org/2005/Atom"}
NEWS = "News\n====\n\n.. trending-news::\n   :source: perf\n"


def _feed(outdir: str | Path, name: str = "news.atom") -> etree._Element:
    return etree.fromstring((Path(outdir) / name).read_bytes())


def _text(element: etree._Element, path: str) -> str:
    found = element.xpath(path, namespaces=ATOM)
    assert len(found) == 1, path
    return found[0] if isinstance(found[0], str) else found[0].text


def test_one_entry_per_event_with_every_required_element(site: SiteFactory) -> None:
    app = site()
    (Path(app.srcdir) / "news.rst").write_text(NEWS)
    app.build()
    assert "trending-news" not in app._warning.getvalue()
    feed = _feed(app.outdir)
    assert feed.tag == "{http://www.w3.org/2005/Atom}feed"
    assert _text(feed, "a:id").startswith("urn:uuid:")
    assert _text(feed, "a:title").endswith("news of perf")
    assert _text(feed, "a:updated") == build_time(30).isoformat()
    assert _text(feed, "a:author/a:name")
    assert _text(feed, "a:link[@rel='self']/@href") == "news.atom"
    assert _text(feed, "a:link[@rel='alternate']/@href") == "news.html"
    entries = feed.xpath("a:entry", namespaces=ATOM)
    titles = [_text(entry, "a:title") for entry in entries]
    assert titles == [
        f"Failure: flaky [{TESTBED}]",
        f"Progression: progress [{TESTBED}]",
        f"Regression: regress [{TESTBED}]",
    ]
    updated = [_text(entry, "a:updated") for entry in entries]
    assert updated == [build_time(build).isoformat() for build in (30, 27, 25)]
    ids = [_text(entry, "a:id") for entry in entries]
    assert len(set(ids)) == 3 and all(entry_id.startswith("urn:uuid:") for entry_id in ids)
    graph_ids = set(built_page(app.outdir, "graphs").xpath("//@id"))
    for entry in entries:
        target, anchor = _text(entry, "a:link[@rel='alternate']/@href").split("#")
        assert target == "graphs.html" and anchor in graph_ids
    assert "since csit-vpp-perf-mrr-daily-master-2n-skx/25" in _text(entries[2], "a:summary")
    assert ", range 26.02-rc0~24 .. 26.02-rc0~25" in _text(entries[2], "a:summary")


def test_the_page_links_the_feed_in_its_head_and_its_body(site: SiteFactory) -> None:
    app = site()
    (Path(app.srcdir) / "news.rst").write_text(NEWS + "\n" + NEWS.split("\n\n", 1)[1])
    app.build()
    page = built_page(app.outdir, "news")
    head = page.xpath("//head/link[@rel='alternate'][@type='application/atom+xml']/@href")
    assert head == ["news.atom", "news.2.atom"]
    visible = page.xpath("//body//a[contains(@class, 'trending-feed')]/@href")
    assert visible == ["news.atom", "news.2.atom"]
    assert (Path(app.outdir) / "news.2.atom").is_file()


def test_an_unchanged_history_gives_the_same_feed(site: SiteFactory) -> None:
    app = site()
    (Path(app.srcdir) / "news.rst").write_text(NEWS)
    app.build()
    first = (Path(app.outdir) / "news.atom").read_bytes()
    app.build(force_all=True)
    assert (Path(app.outdir) / "news.atom").read_bytes() == first


def test_names_from_the_data_are_escaped(site: SiteFactory) -> None:
    app = site()
    srcdir = Path(app.srcdir)
    runs = [
        {
            "job": "evil-job",
            "build": str(build),
            "time": build_time(build).isoformat(),
            "test": "tests.evil",
            "name": EVIL_NAME + "\x1b & more",
            "tags": ["MRR"],
            "status": status,
            "message": "",
            "metric": "mrr",
            "unit": "pps",
            "values": [1e6, 1.1e6] if status == "PASS" else [],
            "testbed": "<b>tb</b>",
        }
        for build, status in ((29, "PASS"), (30, "FAIL"))
    ]
    (srcdir / "data" / "evil.jsonl").write_text("".join(json.dumps(run) + "\n" for run in runs))
    (srcdir / "news.rst").write_text("News\n====\n\n.. trending-news::\n   :periods: 1\n")
    app.build()
    raw = (Path(app.outdir) / "news.atom").read_text(encoding="utf-8")
    assert "<script>" not in raw and "<b>" not in raw and "\x1b" not in raw
    entries = _feed(app.outdir).xpath("a:entry", namespaces=ATOM)
    titles = [_text(entry, "a:title") for entry in entries]
    assert f"Failure: {EVIL_NAME}\u241b & more [<b>tb</b>]" in titles


def test_other_builders_get_no_feed(site: SiteFactory) -> None:
    app = site(builder="text")
    (Path(app.srcdir) / "news.rst").write_text(NEWS)
    app.build()
    assert "trending_feed" not in app._warning.getvalue()
    assert not list(Path(app.outdir).glob("*.atom"))
    assert "Atom" not in (Path(app.outdir) / "news.txt").read_text()
