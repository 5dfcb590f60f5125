"""``trending-failed-tests`` with ``:mode: per-build``, read from the built HTML.

The site's data (:mod:`tests.sphinxext.datasets`) ends at build 30, where
``flaky`` failed ("Traffic generator failed") and four tests passed.  A
second job's newest build fails three tests: two on the same unreachable
host (different addresses), one with a long, hostile message.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

from tests.sphinxext.built_html import cells
from tests.sphinxext.built_html import page as built_page
from tests.sphinxext.conftest import SiteFactory
from tests.sphinxext.datasets import JOB, TESTBED, build_time

LONG = "Teardown failed: <script>alert(1)</script> " + "x" * 150 + "\nsecond line"
MESSAGES = {
    "t0": "",
    "t1": "SSHTimeout: no answer from 10.30.51.49:22 at 2026-01-30 07:00:01",
    "t2": "SSHTimeout: no answer from 10.30.51.50:22 at 2026-01-30 07:12:44",
    "t3": LONG,
}


def _runs() -> list[dict]:
    return [
        {
            "job": "other-job",
            "build": "7",
            "time": build_time(30).isoformat(),
            "start": (build_time(30) + timedelta(minutes=30 * number)).isoformat(),
            "test": f"tests.other.{name}",
            "name": name,
            "tags": ["MRR"],
            "status": "PASS" if name == "t0" else "FAIL",
            "message": message,
            "metric": "mrr",
            "unit": "pps",
            "values": [1e6] if name == "t0" else [],
            "testbed": "3n-icx",
        }
        for number, (name, message) in enumerate(MESSAGES.items())
    ]


def _build(site: SiteFactory, options: str) -> SphinxTestApp:
    app = site()
    srcdir = Path(app.srcdir)
    (srcdir / "data" / "other.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _runs()))
    (srcdir / "builds.rst").write_text(
        f"Builds\n======\n\n.. trending-failed-tests::\n   :source: perf\n{options}"
    )
    app.build()
    return app


def test_newest_build_per_job_with_grouped_masked_messages(site: SiteFactory) -> None:
    app = _build(site, "   :mode: per-build\n")
    assert "trending-failed-tests" not in app._warning.getvalue()
    page = built_page(app.outdir, "builds")
    tables = page.xpath("//table[contains(@class, 'trending-per-build')]")
    captions = [t.xpath("./caption/span[@class='caption-text']")[0].text for t in tables]
    assert captions == [
        f"{JOB}/30 (testbed {TESTBED}, DUT build 26.02-rc0~30, 2026-01-30 06:00 UTC): "
        "4 passed, 1 failed",  # all tests start at the build time: no duration
        "other-job/7 (testbed 3n-icx, 2026-01-30 06:00 UTC): 1 passed, 3 failed, duration 1:30",
    ]
    daily, other = (cells(table) for table in tables)
    assert daily == [["flaky", "1", "Traffic generator failed"]]
    assert other[:2] == [
        ["t1", "2", "SSHTimeout: no answer from <IPv4>:22 at <TIME>"],
        ["t2", "2", "SSHTimeout: no answer from <IPv4>:22 at <TIME>"],
    ]
    folded = tables[1].xpath(".//details[@class='trending-message']")
    assert len(folded) == 1
    summary = folded[0].xpath("./summary")[0].text
    assert summary.startswith("Teardown failed: <script>alert(1)</script> xxx")
    assert summary.endswith("…") and len(summary) == 120
    assert folded[0].xpath("./pre")[0].text == LONG
    assert not page.xpath("//script[normalize-space(.)='alert(1)']")
    links = tables[0].xpath("./tbody/tr/td[1]//a/@href")
    assert len(links) == 1 and links[0].startswith("graphs.html#")


def test_filter_leaves_out_builds_without_its_tests(site: SiteFactory) -> None:
    app = _build(site, "   :mode: per-build\n   :filter: 2t1c\n")
    page = built_page(app.outdir, "builds")
    tables = page.xpath("//table[contains(@class, 'trending-per-build')]")
    assert [cells(table) for table in tables] == [[["flaky", "1", "Traffic generator failed"]]]


def test_all_passed_and_window_does_not_apply(site: SiteFactory) -> None:
    app = site(builds=range(1, 28))  # flaky fails only in builds 28 and 30
    (Path(app.srcdir) / "builds.rst").write_text(
        "Builds\n======\n\n"
        ".. trending-failed-tests::\n   :source: perf\n   :mode: per-build\n\n"
        ".. trending-failed-tests::\n   :source: perf\n   :mode: per-build\n   :window: 3\n"
    )
    app.build()
    assert ":window: does not apply to :mode: per-build" in app._warning.getvalue()
    page = built_page(app.outdir, "builds")
    assert not page.xpath("//table[contains(@class, 'trending-per-build')]")
    notes = [p.text_content() for p in page.xpath("//p[contains(@class, 'trending-no-failures')]")]
    assert notes == [
        f"{JOB}/27 (testbed {TESTBED}, DUT build 26.02-rc0~27, 2026-01-27 06:00 UTC): "
        "5 passed, 0 failed."
    ]


def test_text_builder_shows_whole_messages(site: SiteFactory) -> None:
    app = site(builder="text")
    srcdir = Path(app.srcdir)
    (srcdir / "data" / "other.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _runs()))
    (srcdir / "builds.rst").write_text(
        "Builds\n======\n\n.. trending-failed-tests::\n   :source: perf\n   :mode: per-build\n"
    )
    app.build()
    text = (Path(app.outdir) / "builds.txt").read_text()
    # the whole message, wrapped in its cell, not the summary cut at 120 characters
    assert "second" in text and text.count("x") >= 150 and "…" not in text
