"""trending_norm_frequency: dashboards and graphs show rates at the reference frequency."""

from __future__ import annotations

import pytest

from tests.sphinxext import built_html
from tests.sphinxext.conftest import SiteFactory

# The test site runs on 2n-skx; at 2.5 GHz against a 2.0 GHz reference every
# rate is scaled by 0.8.
NORM = {"reference": 2.0, "testbeds": {"2n-skx": 2.5}}


def test_rates_are_scaled_and_labelled(site: SiteFactory) -> None:
    app = site(confoverrides={"trending_norm_frequency": NORM})
    app.build()
    assert "trending_norm_frequency" not in app.warning.getvalue()
    dashboard = built_html.page(app.outdir, "dashboard")
    header = [th.text_content().strip() for th in dashboard.xpath("//table/thead//th")]
    assert header[1] == "Trend [Mpps, normalised to 2 GHz]"
    rows = {
        cells[0]: cells
        for cells in (
            [cell.text_content().strip() for cell in row.xpath("./td")]
            for row in dashboard.xpath("//table/tbody/tr")
        )
    }
    # regress fell from 10 to 8 Mpps as measured: 8.00 -> 6.40, the change stays -20 %
    assert rows["regress"][1:5] == ["6.40", "6", "-20.00", "-20.00"]
    figures = list(built_html.figures(app.outdir, "graphs").values())
    regress = next(f for f in figures if f["data"][0]["name"] == "regress")
    assert regress["layout"]["yaxis"]["title"]["text"] == "MRR [Mpps], normalised to 2 GHz"
    assert regress["data"][0]["y"][0] == pytest.approx(8.0)


def test_a_testbed_without_frequency_is_left_as_measured_with_a_warning(
    site: SiteFactory,
) -> None:
    app = site(confoverrides={"trending_norm_frequency": {"reference": 2.0, "testbeds": {"x": 1}}})
    app.build()
    assert "has no frequency for testbed(s) 2n-skx" in app.warning.getvalue()
    figures = list(built_html.figures(app.outdir, "graphs").values())
    regress = next(f for f in figures if f["data"][0]["name"] == "regress")
    assert regress["data"][0]["y"][0] == pytest.approx(10.0)
    assert regress["layout"]["yaxis"]["title"]["text"] == "MRR [Mpps]"
