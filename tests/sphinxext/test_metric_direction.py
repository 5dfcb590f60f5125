"""Directives take a metric's direction from the metric table unless the source sets one."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from sphinx.testing.util import SphinxTestApp

from tests.sphinxext import built_html

STEADY = [1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01, 0.99, 1.00, 1.01, 0.99]
PAGE = """Latency
=======

.. trending-dashboard::
   :metric: {metric}
"""


def _site(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp], metric: str, direction: str | None
) -> SphinxTestApp:
    """A latency that rose by half at build 7 and stayed there."""
    srcdir = tmp_path / "site"
    srcdir.mkdir()
    source = {"paths": ["runs.jsonl"], "format": "jsonl"}
    if direction is not None:
        source["direction"] = direction
    (srcdir / "conf.py").write_text(
        f"extensions = [\"sphinxcontrib_trending\"]\ntrending_sources = {{'perf': {source!r}}}\n"
    )
    (srcdir / "index.rst").write_text(PAGE.format(metric=metric))
    rows = [
        {
            "test": "tests.vpp.perf.l2.64b-1c-eth-l2bdbasemaclrn-ndrpdr",
            "build": build,
            "time": f"2026-03-{build:02d}T00:00:00Z",
            "metric": metric,
            "unit": "us",
            "values": [
                (value * (1.5 if build >= 7 else 1.0)) * 10 + trial / 100
                for trial in (-2, -1, 0, 1, 2)
            ],
        }
        for build, value in enumerate(STEADY, start=1)
    ]
    (srcdir / "runs.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    app = make_app("html", srcdir=srcdir)
    app.build()
    return app


@pytest.mark.parametrize("metric", ["latency_pdr50_forward_avg", "reconf_time_lost"])
def test_a_lower_is_better_metric_rising_is_a_regression_unasked(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp], metric: str
) -> None:
    app = _site(tmp_path, make_app, metric, direction=None)
    assert "WARNING" not in app.warning.getvalue(), app.warning.getvalue()
    assert built_html.change_counts(app.outdir) == ("1", "0")


def test_the_sources_explicit_direction_still_wins(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp]
) -> None:
    app = _site(tmp_path, make_app, "latency_pdr50_forward_avg", direction="higher")
    assert built_html.change_counts(app.outdir) == ("0", "1")
