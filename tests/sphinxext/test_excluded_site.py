"""Excluded runs on the site: greyed on the graph with their reason, in no group, not counted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

from sphinxcontrib_trending.render.figure import EXCLUDED_COLOR
from tests.hover import hover_lines
from tests.sphinxext import built_html, datasets

PAGES = """Curated
=======

.. trending-dashboard::

.. trending-graph::
   :tests: dippy
"""
BAD_BUILDS = (16, 17)
EXCLUDED = """\
[[run]]
test = "suite.dippy"
build = "16"
reason = "testbed <b>rebooted</b>"

[[run]]
test = "suite.dippy"
build = "17"
reason = "testbed rebooted"

[[run]]
test = "suite.*"
reason = "no build named"
"""


def _value(name: str, build: int) -> float:
    level = 2.0 if name == "dippy" else 3.0
    if name == "dippy" and build in BAD_BUILDS:
        level *= 2.0
    return level + (0.01 if build % 2 else -0.01)


def _site(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp], excluded: str | None
) -> SphinxTestApp:
    srcdir = tmp_path / "curated"
    srcdir.mkdir()
    conf = (
        'extensions = ["sphinxcontrib_trending"]\n'
        'trending_sources = {"timing": {"paths": ["runs.jsonl"], "format": "jsonl",'
        ' "metric": "seconds", "direction": "lower"}}\n'
        "trending_outlier_runs = 0\n"
    )
    if excluded is not None:
        (srcdir / "excluded.toml").write_text(excluded)
        conf += 'trending_excluded_runs = "excluded.toml"\n'
    (srcdir / "conf.py").write_text(conf)
    (srcdir / "index.rst").write_text(PAGES)
    datasets.write_timings(srcdir, ("dippy", "steady"), _value)
    app = make_app("html", srcdir=srcdir)
    app.build()
    return app


def test_without_the_file_the_bad_runs_are_a_regression_and_a_progression(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp]
) -> None:
    app = _site(tmp_path, make_app, None)
    row = built_html.dashboard_rows(built_html.page(app.outdir, "index"))["dippy"]
    assert (row["Regressions [#]"], row["Progressions [#]"]) == ("1", "1")
    assert "dippy excluded" not in built_html.traces(app.outdir)


def test_excluded_runs_are_greyed_with_their_reason_and_open_no_group(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp]
) -> None:
    app = _site(tmp_path, make_app, EXCLUDED)
    warnings = app.warning.getvalue()
    assert "excluded.toml:11: excluded run 3 ignored: give 'build', 'version'" in warnings
    assert warnings.count("WARNING") == 1, warnings
    row = built_html.dashboard_rows(built_html.page(app.outdir, "index"))["dippy"]
    assert (row["Regressions [#]"], row["Progressions [#]"]) == ("0", "0")
    traces = built_html.traces(app.outdir)
    runs, excluded = traces["dippy"], traces["dippy excluded"]
    assert len(runs["x"]) == 18 and len(excluded["x"]) == 2
    assert excluded["marker"]["color"] == EXCLUDED_COLOR
    assert excluded["y"] == [_value("dippy", build) for build in BAD_BUILDS]
    first = hover_lines(excluded, 0)
    assert first[0] == "excluded: testbed &lt;b&gt;rebooted&lt;/b&gt;"
    # the trend line never leaves the level: no group was made of the bad runs
    assert len(set(traces["dippy trend"]["y"])) == 1
