"""``trending-incidents`` on the test site, with three tests dropping at one build.

Besides the site's own data (:mod:`tests.sphinxext.datasets`: ``regress``
drops at build 25, ``progress`` rises at 27, ``flaky`` fails again at 30),
three tests tagged ``DROP`` (in a job of their own) lose 10, 20 and 30 % at build 20, one of them
with markup in its name, and ``elsewhere`` drops at build 20 too but on
another testbed, in another job, running another DUT version.
"""

from __future__ import annotations

import json
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

from tests.sphinxext.built_html import cells
from tests.sphinxext.built_html import page as built_page
from tests.sphinxext.conftest import SiteFactory
from tests.sphinxext.datasets import BUILDS, JOB, TESTBED, build_time

HOSTILE = "drop-<b>bold</b>"
DROP_JOB = f"{JOB}-drops"
"""A job of its own: a build is read once, whichever file holds it."""
DROPS = {"drop-10": 0.9, "drop-20": 0.8, HOSTILE: 0.7}


def _row(test: str, build: int, value: float, job: str, testbed: str, tags: list[str]) -> dict:
    return {
        "job": job,
        "build": str(build),
        "time": build_time(build).isoformat(),
        "test": f"tests.perf.{test}",
        "name": test,
        "tags": tags,
        "status": "PASS",
        "message": "",
        "metric": "mrr",
        "unit": "pps",
        "values": [value + (-50e3, 50e3)[k % 2] for k in range(10)],
        "version": f"26.02-rc0~{build}" if testbed == TESTBED else f"other-{build}",
        "testbed": testbed,
    }


def _write_drops(folder: Path) -> None:
    rows = []
    for build in range(1, BUILDS + 1):
        for test, factor in DROPS.items():
            level = 10e6 if build < 20 else 10e6 * factor
            rows.append(_row(test, build, level, DROP_JOB, TESTBED, ["MRR", "2T1C", "DROP"]))
        level = 4e6 if build < 20 else 3e6
        rows.append(_row("elsewhere", build, level, "job-3n-icx", "3n-icx", ["MRR", "2T1C"]))
    (folder / "drops.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))


def _built(site: SiteFactory, directive: str) -> SphinxTestApp:
    app = site()
    srcdir = Path(app.srcdir)
    _write_drops(srcdir / "data")
    (srcdir / "incidents.rst").write_text(f"Incidents\n=========\n\n{directive}")
    app.build()
    return app


def test_one_incident_per_build_with_its_member_tests_folded(site: SiteFactory) -> None:
    app = _built(site, ".. trending-incidents::\n   :source: perf\n")
    assert "trending-incidents" not in app._warning.getvalue()
    page = built_page(app.outdir, "incidents")
    overview = page.xpath("//table[contains(@class, 'trending-incidents')]")
    assert len(overview) == 1
    rows = cells(overview[0])
    assert [(row[0], row[1], row[3]) for row in rows] == [
        ("Failure", "1", "26.02-rc0~30"),
        ("Progression", "1", "26.02-rc0~27"),
        ("Regression", "1", "26.02-rc0~25"),
        ("Regression", "3", "26.02-rc0~20"),
        ("Regression", "1", "other-20"),
    ]
    three = rows[3]
    assert three[5:7] == ["26.02-rc0~19", f"{DROP_JOB}/19"]
    assert three[7] == f"testbed {TESTBED}, cores 2T1C, test type mrr"
    assert three[8:] == ["-20.00", "-30.00", "-10.00"]
    folded = page.xpath("//details[contains(@class, 'trending-incident')]")
    assert len(folded) == 5
    members = folded[3].xpath(".//table[contains(@class, 'trending-incident-members')]")
    assert [row[0] for row in cells(members[0])] == [HOSTILE, "drop-20", "drop-10"]
    assert [row[6] for row in cells(members[0])] == ["-30.00", "-20.00", "-10.00"]
    summary = folded[3].xpath("./summary")[0].text_content()
    assert summary.startswith("Regression: 3 tests since 26.02-rc0~20")
    assert page.xpath("//table//b") == []  # the hostile name is text, not markup
    graph_ids = set(built_page(app.outdir, "graphs").xpath("//@id"))
    for href in members[0].xpath("./tbody/tr/td[1]//a/@href"):
        assert href.split("#")[1] in graph_ids


def test_the_filter_and_days_options_choose_the_incidents(site: SiteFactory) -> None:
    app = _built(
        site,
        ".. trending-incidents::\n   :source: perf\n   :filter: drop\n\n"
        ".. trending-incidents::\n   :source: perf\n   :days: 4\n",
    )
    page = built_page(app.outdir, "incidents")
    tables = page.xpath("//table[contains(@class, 'trending-incidents')]")
    assert [[row[3] for row in cells(table)] for table in tables] == [
        ["26.02-rc0~20"],
        ["26.02-rc0~30", "26.02-rc0~27"],
    ]


def test_news_leads_with_the_periods_incidents(site: SiteFactory) -> None:
    app = _built(site, ".. trending-news::\n   :source: perf\n   :periods: 30\n")
    page = built_page(app.outdir, "incidents")
    tables = page.xpath("//table[contains(@class, 'trending-table')]")
    classes = [table.get("class") for table in tables]
    assert "trending-incidents" in classes[0] and "trending-news" in classes[-1]
    overview = cells(tables[0])
    assert ("Regression", "3") in [(row[0], row[1]) for row in overview]


def test_other_builders_show_the_member_tables_open(site: SiteFactory) -> None:
    app = site(builder="text")
    _write_drops(Path(app.srcdir) / "data")
    (Path(app.srcdir) / "incidents.rst").write_text(
        "Incidents\n=========\n\n.. trending-incidents::\n   :source: perf\n   :filter: drop\n"
    )
    app.build()
    text = (Path(app.outdir) / "incidents.txt").read_text()
    assert "<details" not in text and "<summary>" not in text
    assert "Regression: 3 tests since 26.02-rc0~20" in text
    assert HOSTILE in text and "drop-20" in text


def test_news_without_shared_changes_has_no_incidents_to_repeat(site: SiteFactory) -> None:
    app = site()
    (Path(app.srcdir) / "news.rst").write_text(
        "News\n====\n\n.. trending-news::\n   :source: perf\n"
    )
    app.build()
    page = built_page(app.outdir, "news")
    assert page.xpath("//table[contains(@class, 'trending-incidents')]") == []
    assert page.xpath("//details") == []
    assert len(page.xpath("//table[contains(@class, 'trending-news')]")) == 3
