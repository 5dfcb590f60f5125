"""``trending-degradation`` hides No Change unless asked, and names builds JOB/BUILD."""

from __future__ import annotations

from pathlib import Path

import lxml.html

from tests.sphinxext.conftest import SiteFactory

JOB = "csit-vpp-perf-mrr-daily-master-2n-skx"


def test_no_change_only_with_the_option_and_the_old_build_syntax_warns(site: SiteFactory) -> None:
    app = site()
    srcdir = Path(app.srcdir)
    (srcdir / "degradation.rst").write_text(
        "Degradation\n===========\n\n"
        f".. trending-degradation::\n   :source: perf\n   :target: {JOB}-30\n\n"
        f".. trending-degradation::\n   :source: perf\n   :target: {JOB}/30\n"
        "   :show-no-change:\n"
    )
    app.build()
    page = lxml.html.fromstring((Path(app.outdir) / "degradation.html").read_bytes())
    quiet, verbose = (
        [tr.xpath("./td")[1].text_content().strip() for tr in table.xpath("./tbody/tr")]
        for table in page.xpath("//table[contains(@class, 'trending-degradation')]")
    )
    assert "No Change" in verbose
    assert "No Change" not in quiet
    assert quiet == [result for result in verbose if result != "No Change"]
    warnings = app._warning.getvalue()
    assert f"the JOB-BUILD syntax is deprecated, write '{JOB}/30'" in warnings
