"""Directives trend a telemetry series chosen by ``:metric: telemetry:<name>`` and ``:labels:``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from sphinx.testing.util import SphinxTestApp

from tests.sphinxext import built_html
from tests.sphinxext.built_html import page

STEADY = [1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01, 0.99, 1.00, 1.01, 0.99]
TEST = "tests.vpp.perf.l2.64b-1c-eth-l2bdbasemaclrn-mrr"


def _rows() -> list[dict]:
    """``calls_total`` of worker 1 rises by half at build 7; worker 2's stays."""
    rows = []
    for build, value in enumerate(STEADY, start=1):
        for thread, rises in (("1", True), ("2", False)):
            scale = 1.5 if rises and build >= 7 else 1.0
            rows.append(
                {
                    "test": TEST,
                    "build": build,
                    "time": f"2026-03-{build:02d}T00:00:00Z",
                    "metric": "telemetry:calls_total",
                    "labels": {"name": "ip4-input", "thread_id": thread},
                    "values": [value * scale * 1e6 + trial for trial in (-2, -1, 0, 1, 2)],
                }
            )
    return rows


def _site(
    tmp_path: Path,
    make_app: Callable[..., SphinxTestApp],
    options: str,
    directive: str = "trending-dashboard",
) -> SphinxTestApp:
    srcdir = tmp_path / "site"
    srcdir.mkdir()
    source = {"paths": ["runs.jsonl"], "format": "jsonl"}
    (srcdir / "conf.py").write_text(
        f"extensions = [\"sphinxcontrib_trending\"]\ntrending_sources = {{'perf': {source!r}}}\n"
    )
    page_text = f"Telemetry\n=========\n\n.. {directive}::\n" + options
    (srcdir / "index.rst").write_text(page_text)
    (srcdir / "runs.jsonl").write_text("".join(json.dumps(row) + "\n" for row in _rows()))
    app = make_app("html", srcdir=srcdir)
    app.build()
    return app


@pytest.mark.parametrize(
    ("labels", "counts"),
    [("thread_id=1", ("0", "1")), ("thread_id=~[2-9] name=ip4-input", ("0", "0"))],
)
def test_the_labels_choose_the_series_that_is_trended_and_judged(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp], labels: str, counts: tuple[str, str]
) -> None:
    options = f"   :metric: telemetry:calls_total\n   :labels: {labels}\n"
    app = _site(tmp_path, make_app, options)
    assert "WARNING" not in app.warning.getvalue(), app.warning.getvalue()
    assert built_html.change_counts(app.outdir) == counts


def test_a_series_spelt_whole_needs_no_labels(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp]
) -> None:
    metric = 'telemetry:calls_total{name="ip4-input",thread_id="1"}'
    app = _site(tmp_path, make_app, f"   :metric: {metric}\n")
    assert "WARNING" not in app.warning.getvalue(), app.warning.getvalue()
    assert built_html.change_counts(app.outdir) == ("0", "1")


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (
            "   :metric: telemetry:calls_total\n   :labels: name=ip4-input\n",
            "2 telemetry series of telemetry:calls_total match labels name=ip4-input; "
            "add :labels: to choose one (they differ in thread_id: 1, 2)",
        ),
        (
            "   :metric: telemetry:calls_total\n   :labels: thread_id=7\n",
            "no telemetry series of source 'perf' is telemetry:calls_total with labels thread_id=7",
        ),
        ("   :metric: mrr\n   :labels: thread_id=1\n", ":labels: needs a telemetry :metric:"),
        (
            "   :metric: telemetry:calls_total\n   :labels: thread_id\n",
            "bad :labels:: 'thread_id' is not key=value or key=~regex",
        ),
        (
            "   :metric: telemetry:calls_total\n   :labels: thread_id=~(\n",
            "bad :labels:: 'thread_id=~(': bad regular expression",
        ),
    ],
)
def test_labels_that_choose_no_single_series_are_a_warning(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp], options: str, said: str
) -> None:
    app = _site(tmp_path, make_app, options)
    assert said in app.warning.getvalue()
    assert page(app.outdir, "index").xpath("//table[contains(@class, 'trending-table')]") == []


def test_a_graph_of_a_telemetry_series_builds_cleanly(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp]
) -> None:
    options = "   :metric: telemetry:calls_total\n   :labels: thread_id=1\n   :tests: .*\n"
    app = _site(tmp_path, make_app, options, directive="trending-graph")
    assert "WARNING" not in app.warning.getvalue(), app.warning.getvalue()
    html = page(app.outdir, "index")
    assert html.xpath("//*[contains(@class, 'trending-graph')]")
