"""A source without builds says why on every page that shows it, and the build log is right.

Before, its tables were empty or said "up to 1970-01-01" (the windows end at
the newest build, and there was none), and a table source left without
``format`` failed as "malformed XML".
"""

from __future__ import annotations

from pathlib import Path

import lxml.html

from sphinxcontrib_trending.ingest.sniffing import not_robot_hint
from tests.sphinxext.conftest import SiteFactory

EVERY_WINDOWED_DIRECTIVE = """:orphan:

More
====

.. trending-failed-tests::
   :source: perf

.. trending-job-stats::
   :source: perf

.. trending-news::
   :source: perf

.. trending-noise::
   :source: perf
"""
PAGES = ("dashboard", "failed", "graphs", "degradation")


def _notes(outdir: str | Path, pages: tuple[str, ...] = PAGES) -> dict[str, list[str]]:
    """Each page's no-data notes; asserts that no page shows the epoch."""
    found = {}
    for name in pages:
        html = (Path(outdir) / f"{name}.html").read_text()
        assert "1970" not in html, name
        page = lxml.html.fromstring(html)
        found[name] = [p.text_content() for p in page.xpath("//p[@class='trending-no-data']")]
    return found


def test_a_source_matching_nothing_says_so_on_each_page(site: SiteFactory) -> None:
    sources = {"perf": {"paths": ["no-such-folder/*.jsonl"], "format": "jsonl"}}
    app = site(confoverrides={"trending_sources": sources})
    (Path(app.srcdir) / "more.rst").write_text(EVERY_WINDOWED_DIRECTIVE)
    app.build()
    expected = (
        "No data to show: source perf has no build, as its paths match no input file "
        "(see trending_sources['perf'] in conf.py and the warnings of the build)."
    )
    counts = {"dashboard": 1, "failed": 1, "graphs": 1, "degradation": 2, "more": 4}
    expected_notes = {name: [expected] * count for name, count in counts.items()}
    assert _notes(app.outdir, (*PAGES, "more")) == expected_notes
    warnings = app.warning.getvalue()
    # the source's own warnings ("no such file", "matched no usable build"), none per directive
    trending = [line for line in warnings.splitlines() if "[trending." in line]
    assert len(trending) == 2, warnings
    assert "trending_sources['perf']: matched no usable build" in warnings


def test_a_table_source_without_format_says_which_format_to_set(site: SiteFactory) -> None:
    app = site(confoverrides={"trending_sources": {"perf": {"paths": ["data/*.jsonl"]}}})
    app.build()
    warnings = app.warning.getvalue()
    assert not_robot_hint("jsonl") in warnings
    assert "malformed XML" not in warnings
    notes = _notes(app.outdir)
    assert "as its inputs hold no usable build" in notes["dashboard"][0]


def test_the_log_says_everything_was_parsed_on_a_cold_build(site: SiteFactory) -> None:
    app = site()
    app.build()
    status = app.status.getvalue()
    assert "source 'perf': 30 build(s) from 1 file(s), all parsed" in status
    assert "from the store" not in status
