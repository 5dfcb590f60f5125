"""``trending-comparison`` on the test site: the numbers in the HTML, checked by hand.

The site's data (:mod:`tests.sphinxext.datasets`) has 30 daily builds; by
default B is builds 24-30 and A builds 17-23.  ``regress`` runs at 10 Mpps
until build 24 and at 8 Mpps from 25: B's mean is (10 + 6 * 8) / 7.
"""

from __future__ import annotations

from pathlib import Path

import lxml.html

from tests.sphinxext import built_html
from tests.sphinxext.built_html import cells
from tests.sphinxext.conftest import SiteFactory
from tests.sphinxext.datasets import EVIL_NAME, JOB


def _tables(app_outdir: str, page: str) -> list[lxml.html.HtmlElement]:
    html = built_html.page(app_outdir, page)
    return html.xpath("//table[contains(@class, 'trending-comparison')]")


def test_default_weeks_worst_first_with_the_values(site: SiteFactory) -> None:
    app = site()
    srcdir = Path(app.srcdir)
    (srcdir / "comparison.rst").write_text(
        "Comparison\n==========\n\n"
        ".. trending-comparison::\n   :source: perf\n\n"
        ".. trending-comparison::\n   :source: perf\n"
        "   :a: version 26.02-rc0~1\n"
        f"   :b: builds {JOB}/29..30\n"
        "   :min-change: 15\n   :filter: MRR\n\n"
        ".. trending-comparison::\n   :source: perf\n   :samples: trials\n"
    )
    app.build()
    assert "trending-comparison" not in app._warning.getvalue()
    default, pinned, by_trial = _tables(app.outdir, "comparison")
    rows = cells(default)
    assert [row[0] for row in rows] == ["regress", EVIL_NAME, "flaky", "stable", "progress"]
    regress = rows[0]
    # One observation per run: every one of A's 7 runs averages exactly 10 Mpps.
    assert regress[1:4] == ["10.000", "0.000", "7"]
    # :samples: trials pools the 70 trials of 10 Mpps +- 50 kpps instead.
    assert cells(by_trial)[0][:4] == ["regress", "10.000", "0.050", "7"]
    assert regress[4] == f"{58 / 7:.3f}"
    assert regress[6] == "7"
    assert regress[7] == f"{(58 / 7 / 10 - 1) * 100:.2f}" == "-17.14"
    low, high = (float(x) for x in regress[8].split(" .. "))
    assert low < -17.14 < high
    assert regress[9] == "Degradation, Welch's t-test"
    flaky = rows[2]
    assert flaky[6] == "5"  # builds 28 and 30 failed: no value, not counted
    assert flaky[7] == "0.00" and flaky[9] == "No Change, Welch's t-test"
    progress = rows[-1]
    assert progress[7] == f"{(39 / 7 / 5 - 1) * 100:.2f}" == "11.43"
    assert progress[9] == "Optimization, Welch's t-test"
    classes = [tr.get("class") or "" for tr in default.xpath("./tbody/tr")]
    assert "trending-regression" in classes[0] and "trending-progression" in classes[-1]
    assert "trending-changes" in default.get("class")
    assert not default.xpath("//script[contains(., 'alert(1)')]")  # the evil name is text
    # Build 1 against builds 29-30, only changes above 15 %: the two 20 % steps.
    pinned_rows = cells(pinned)
    assert [(row[0], row[3], row[6], row[7]) for row in pinned_rows] == [
        ("regress", "1", "2", "-20.00"),
        ("progress", "1", "2", "20.00"),
    ]
    assert "A: 26.02-rc0~1 (1 builds) vs B:" in pinned.xpath("./caption")[0].text_content()


def test_bad_period_warns_and_names_the_option(site: SiteFactory) -> None:
    app = site()
    (Path(app.srcdir) / "comparison.rst").write_text(
        "Comparison\n==========\n\n"
        ".. trending-comparison::\n   :source: perf\n   :a: week 1\n   :b: version x\n\n"
        ".. trending-comparison::\n   :source: perf\n   :a: version x\n"
    )
    app.build()
    warnings = app._warning.getvalue()
    assert "trending-comparison: :a: 'week 1': write 'dates FIRST..LAST'" in warnings
    assert "give both :a: and :b:, or neither" in warnings
    assert _tables(app.outdir, "comparison") == []
