"""``trending-noise`` on the test site, read from the built HTML.

The site's data (:mod:`tests.sphinxext.datasets`) has 30 daily builds, so
its histories cover 29 days: ``regress`` and ``progress`` each change once
(1.0 anomalies per 30 days), ``flaky`` fails twice (2.1 per 30 days).  Run
averages sit exactly on their levels, so every relative noise is 0, and so is
every stated false-alarm rate: shuffling no noise makes no alarm.
"""

from __future__ import annotations

from pathlib import Path

from tests.sphinxext.built_html import cells
from tests.sphinxext.built_html import page as built_page
from tests.sphinxext.conftest import SiteFactory
from tests.sphinxext.datasets import EVIL_NAME, TESTBED


def test_ranked_per_testbed_and_linked_to_graphs(site: SiteFactory) -> None:
    app = site()
    (Path(app.srcdir) / "noise.rst").write_text(
        "Noise\n=====\n\n"
        ".. trending-noise::\n   :source: perf\n\n"
        ".. trending-noise::\n   :source: perf\n   :sort-by: failures\n   :window: 4\n"
    )
    app.build()
    assert "trending-noise" not in app._warning.getvalue()
    page = built_page(app.outdir, "noise")
    tables = page.xpath("//table[contains(@class, 'trending-noise')]")
    captions = [table.xpath("./caption/span[@class='caption-text']")[0].text for table in tables]
    assert captions == [f"Testbed {TESTBED}", f"Testbed {TESTBED}"]
    heads = [th.text_content().strip() for th in tables[0].xpath("./thead//th")]
    assert heads == [
        "Test Case",
        "Trend [Mpps]",
        "Noise [%]",
        "Anomalies [per 30 days]",
        "Outliers [%]",
        "Failures [per 30 days]",
        "Stated false alarms [per 100 runs]",
    ]
    ranked, recent = (cells(table) for table in tables)
    assert ranked == [
        ["progress", "6.00", "0.00", "1.0", "0.00", "0.0", "0.00"],
        ["regress", "8.00", "0.00", "1.0", "0.00", "0.0", "0.00"],
        ["flaky", "2.00", "0.00", "0.0", "0.00", "2.1", "0.00"],
        [EVIL_NAME, "3.00", "0.00", "0.0", "0.00", "0.0", "0.00"],
        ["stable", "3.00", "0.00", "0.0", "0.00", "0.0", "0.00"],
    ]
    # the last 4 days hold builds 27..30: flaky failed twice, progress rose in build 27
    assert [row[0] for row in recent][:2] == ["flaky", "progress"]
    assert recent[0][5] == "15.0" and recent[1][3] == "7.5"
    graph_ids = set(built_page(app.outdir, "graphs").xpath("//@id"))
    links = tables[0].xpath("./tbody/tr/td[1]//a/@href")
    assert len(links) == 5
    assert all(href.split("#")[0] == "graphs.html" for href in links)
    assert all(href.split("#")[1] in graph_ids for href in links)
    assert not page.xpath("//script[normalize-space(.)='alert(1)']")
    assert EVIL_NAME in page.xpath("string(//table[contains(@class, 'trending-noise')])")
