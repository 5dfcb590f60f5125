"""``trending-job-stats`` on the test site, read from the built HTML.

The site's data (:mod:`tests.sphinxext.datasets`) has 30 daily builds of one
job with five tests each; ``flaky`` fails in builds 28 and 30.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

from tests.sphinxext import built_html
from tests.sphinxext.built_html import cells
from tests.sphinxext.built_html import page as built_page
from tests.sphinxext.conftest import SiteFactory
from tests.sphinxext.datasets import JOB, build_time

EVIL_JOB = "evil-<script>alert(1)</script>-job"


def _evil_runs() -> list[dict]:
    """Two builds of a second job: three tests 20 minutes apart, one skipped in build 30."""
    runs = []
    for build in (29, 30):
        for number, status in enumerate(("PASS", "FAIL", "SKIP" if build == 30 else "PASS")):
            runs.append(
                {
                    "job": EVIL_JOB,
                    "build": str(build),
                    "time": build_time(build).isoformat(),
                    "start": (build_time(build) + timedelta(minutes=20 * number)).isoformat(),
                    "test": f"tests.evil.t{number}",
                    "name": f"t{number}",
                    "tags": ["MRR", "EVIL"],
                    "status": status,
                    "message": "" if status == "PASS" else "broken",
                    "metric": "mrr",
                    "unit": "pps",
                    "values": [1e6] if status == "PASS" else [],
                    "testbed": "3n-icx",
                }
            )
    return runs


def _build(site: SiteFactory, body: str) -> SphinxTestApp:
    app = site()
    srcdir = Path(app.srcdir)
    (srcdir / "data" / "evil.jsonl").write_text(
        "".join(json.dumps(run) + "\n" for run in _evil_runs())
    )
    (srcdir / "stats.rst").write_text(f"Job statistics\n==============\n\n{body}")
    app.build()
    return app


def test_per_job_table_and_graph(site: SiteFactory) -> None:
    app = _build(site, ".. trending-job-stats::\n   :source: perf\n")
    assert "trending-job-stats" not in app._warning.getvalue()
    page = built_page(app.outdir, "stats")
    tables = page.xpath("//table[contains(@class, 'trending-job-stats')]")
    captions = [table.xpath("./caption/span[@class='caption-text']")[0].text for table in tables]
    assert captions == [
        f"{JOB}: 30 builds, 2 with failed tests",
        f"{EVIL_JOB}: 2 builds, 2 with failed tests",
    ]
    daily, evil = (cells(table) for table in tables)
    assert len(daily) == 30
    assert daily[0] == [
        f"{JOB}/30",
        "2026-01-30 06:00 UTC",
        "26.02-rc0~30",
        "4",
        "1",
        "0",
        "",
    ]  # not measured: not 0:00
    assert daily[1][3:5] == ["5", "0"]
    assert evil == [
        [f"{EVIL_JOB}/30", "2026-01-30 06:00 UTC", "", "1", "1", "1", "0:40"],
        [f"{EVIL_JOB}/29", "2026-01-29 06:00 UTC", "", "2", "1", "0", "0:40"],
    ]
    # the name stays text in the tables and an escaped string in the figure's JSON
    assert not page.xpath("//script[normalize-space(.)='alert(1)']")
    figures = list(built_html.figures(app.outdir, "stats").values())
    assert [figure["layout"]["title"]["text"] for figure in figures] == [
        JOB,
        "evil-&lt;script&gt;alert(1)&lt;/script&gt;-job",
    ]
    passed, failed, skipped, duration = figures[1]["data"]
    assert (passed["y"], failed["y"], skipped["y"], duration["y"]) == (
        [2, 1],
        [1, 1],
        [0, 1],
        [40.0, 40.0],
    )


def test_window_jobs_and_filter_options(site: SiteFactory) -> None:
    app = _build(
        site,
        ".. trending-job-stats::\n   :source: perf\n   :window: 5\n   :jobs: daily\n\n"
        ".. trending-job-stats::\n   :source: perf\n   :filter: EVIL\n\n"
        ".. trending-job-stats::\n   :source: perf\n   :jobs: (\n\n"
        ".. trending-job-stats::\n   :source: perf\n   :jobs: nothing\n",
    )
    warnings = app._warning.getvalue()
    assert "trending-job-stats: bad :jobs: regular expression '('" in warnings
    assert "no build of source 'perf' in the 90 days up to 2026-01-30 06:00" in warnings
    page = built_page(app.outdir, "stats")
    tables = page.xpath("//table[contains(@class, 'trending-job-stats')]")
    window, filtered = (cells(table) for table in tables)
    assert [row[0] for row in window] == [f"{JOB}/{build}" for build in range(30, 25, -1)]
    assert [row[0] for row in filtered] == [f"{EVIL_JOB}/30", f"{EVIL_JOB}/29"]
