"""What a graph lists in the site's search: its series' name and dimension labels,
the labels made once for all series with the same dimensions."""

from __future__ import annotations

from sphinxcontrib_trending.analysis.history import TestHistory, history_key
from sphinxcontrib_trending.ingest.dimensions import Dimensions
from sphinxcontrib_trending.sphinxext.directives.graph import _labels, _search_text


def _history(test: str, testbed: str | None, dimensions: Dimensions) -> TestHistory:
    return TestHistory(
        key=history_key(testbed, f"tests.{test}"),
        test_id=f"tests.{test}",
        name=test,
        suite="tests",
        tags=(),
        testbed=testbed,
        thread_core=None,
        metric="mrr",
        unit="pps",
        runs=(),
        dimensions=dimensions,
    )


def test_series_with_equal_dimensions_share_one_making_of_their_labels() -> None:
    _labels.cache_clear()
    first = _history("64b-2t1c-ip4", "2n-icx", Dimensions(nic="10ge2p1x710", cores="2T1C"))
    second = _history("64b-4t2c-ip4", "2n-icx", Dimensions(nic="10ge2p1x710", cores="2T1C"))
    assert _search_text(first) == (
        first.display_name,
        "testbed=2n-icx nic=10ge2p1x710 cores=2T1C",
    )
    assert _search_text(second)[1] == _search_text(first)[1]
    assert _labels.cache_info().misses == 1


def test_a_testbed_among_the_dimensions_is_listed_once() -> None:
    history = _history("64b-ip4", "2n-icx", Dimensions(testbed="2n-icx", frame_size="64B"))
    assert _search_text(history) == (history.display_name, "testbed=2n-icx frame_size=64B")
