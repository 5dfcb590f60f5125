"""The anomaly policy and the known-changes file on the rendered site."""

from __future__ import annotations

from pathlib import Path

import lxml.html

from tests.sphinxext import built_html
from tests.sphinxext.conftest import SiteFactory


def _rows(app) -> dict[str, tuple[list[str], str]]:
    page = lxml.html.fromstring((Path(app.outdir) / "dashboard.html").read_bytes())
    return {
        tr.xpath("./td")[0].text_content().strip(): (
            [td.text_content().strip() for td in tr.xpath("./td")],
            tr.get("class", ""),
        )
        for tr in page.xpath("//table/tbody/tr")
    }


def _anomaly_traces(app) -> dict[str, dict]:
    figures = built_html.figures(app.outdir, "graphs").values()
    return {f["data"][0]["name"]: f["data"][2] for f in figures if len(f["data"]) > 2}


def test_acknowledged_and_maybe_anomalies_are_not_counted(site: SiteFactory) -> None:
    app = site(root="policy")
    app.build()
    rows = _rows(app)
    regress, regress_class = rows["regress"]
    assert regress[5:7] == ["0", "0"]
    assert "trending-acknowledged" in regress_class
    progress, progress_class = rows["progress"]
    assert progress[5:7] == ["0", "0"]  # +20 % is below min_change 25 %: a maybe
    assert "trending-maybe" in progress_class
    traces = _anomaly_traces(app)
    regress_marker = traces["regress"]
    assert regress_marker["marker"]["color"] == ["#8c8c8c"]
    headline = regress_marker["customdata"][0][5]
    assert headline.startswith("maybe regression")
    assert "acknowledged: New &lt;b&gt;driver&lt;/b&gt;, expected" in headline
    progress_marker = traces["progress"]
    assert progress_marker["marker"]["color"] == ["#98d594"]
    assert progress_marker["marker"]["size"] == [11]


def test_editing_the_known_changes_file_rereads_the_pages(site: SiteFactory) -> None:
    app = site(root="policy")
    app.build()
    (Path(app.srcdir) / "known.toml").write_text(
        '[[change]]\ntest = "tests.perf.progress"\nbuild = "27"\nreason = "tuning"\n'
    )
    app2 = site(root="policy")  # a new run of sphinx-build reads the file again
    app2.build()
    assert "2 changed" in app2.status.getvalue()
    rows = _rows(app2)
    assert "trending-acknowledged" in rows["progress"][1]
    assert "trending-maybe" in rows["regress"][1]


def test_a_broken_known_changes_file_warns_and_acknowledges_nothing(site: SiteFactory) -> None:
    app = site(root="policy")
    (Path(app.srcdir) / "known.toml").write_text("[[change]]\nreason = 1\n")
    app = site(root="policy")
    app.build()
    assert "trending_known_changes" in app.warning.getvalue()
    assert "known.toml" in app.warning.getvalue()
    assert "trending-maybe" in _rows(app)["regress"][1]
