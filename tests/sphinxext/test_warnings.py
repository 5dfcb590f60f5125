"""Bad configuration, options and data warn with type trending and go on."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from sphinxcontrib_trending.sphinxext.warnings import SUBTYPES, WarningSubtype, warn
from tests.sphinxext.conftest import SiteFactory


def test_bad_input_warns_by_subtype_and_the_rest_builds(site: SiteFactory) -> None:
    app = site(root="badinput")
    (Path(app.srcdir) / "data" / "zz-broken.jsonl").write_text('{"test": "x", "build": \n')
    app.build()
    warnings = app.warning.getvalue()
    assert "trending_sources['broken']" in warnings
    assert "trending_plotlyjs" in warnings
    assert "unknown source 'nosuchsource'" in warnings
    assert "bad :filter: 'mrr and ('" in warnings
    assert "unknown group-by field(s) colour" in warnings
    assert "bad :tests: regular expression" in warnings
    assert "zz-broken.jsonl" in warnings
    # a metric the data lacks: both directives name the metrics it has
    assert (
        warnings.count("has metric 'latency' and matches the filter (metrics in the data: mrr)")
        == 1
    )
    assert warnings.count("matches :tests: and :filter: (metrics in the data: mrr)") == 1
    for subtype in ("config", "option", "filter", "parse"):
        assert f"[trending.{subtype}]" in warnings
    html = (Path(app.outdir) / "index.html").read_text()
    assert "regress" in html  # the good dashboard still rendered


def test_suppress_warnings_silences_a_subtype(site: SiteFactory) -> None:
    app = site(root="badinput", confoverrides={"suppress_warnings": ["trending.option"]})
    app.build()
    warnings = app.warning.getvalue()
    assert "unknown source" not in warnings
    assert "[trending.config]" in warnings


def test_every_warning_subtype_is_described_once() -> None:
    assert tuple(SUBTYPES) == get_args(WarningSubtype)
    assert all(description.strip() for description in SUBTYPES.values())


def test_an_unknown_subtype_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown warning subtype"):
        warn("message", "nonsense")  # type: ignore[arg-type]


def test_a_source_that_matches_nothing_is_a_config_warning(site: SiteFactory) -> None:
    sources = {
        "perf": {"paths": ["data/*.jsonl"], "format": "jsonl"},
        "typo": {"paths": ["dta/*.jsonl"], "format": "jsonl"},
    }
    app = site(confoverrides={"trending_sources": sources})
    app.build()
    warnings = app.warning.getvalue()
    assert "trending_sources['typo']: matched no usable build" in warnings
    assert warnings.count("[trending.config]") == 1
