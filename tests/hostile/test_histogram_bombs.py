"""An HDR histogram is compressed data: it inflates in bounded steps, charged to its input."""

from __future__ import annotations

import base64
import ctypes
import struct
import tracemalloc
import zlib
from pathlib import Path

from hdrh import codec

from sphinxcontrib_trending.ingest.limits import ReadLimits
from sphinxcontrib_trending.ingest.model import Measurement
from sphinxcontrib_trending.ingest.results import read_message
from tests.hostile.documents import load_here, messages, rf7, rf7_test, write

MiB = 1024 * 1024


def _histogram(stated: int, inflated: int) -> str:
    """A ``HISTF`` string whose header states ``stated`` bytes of counts and holds ``inflated``."""
    header = codec.PayloadHeader()
    header.cookie = codec.get_encoding_cookie()
    header.payload_len = stated
    header.significant_figures = 3
    header.lowest_trackable_value = 1
    header.highest_trackable_value = 3_600_000_000
    header.conversion_ratio_bits = 1.0
    payload = ctypes.string_at(ctypes.addressof(header), codec.payload_header_size)
    compressed = zlib.compress(payload + b"\0" * inflated, 9)
    wrapped = struct.pack(">II", codec.get_compression_cookie(), len(compressed)) + compressed
    return base64.b64encode(wrapped).decode("ascii").rstrip("=")


def _latency(histogram: str) -> str:
    return f"PDR: 1e7 pps, 6.72 Gbps (initial)\nLatency at 50% PDR: ['1/2/3/{histogram}', '4/5/6/']"


def test_a_histogram_inflating_past_its_stated_length_is_refused_in_small_steps() -> None:
    bomb = _histogram(stated=100, inflated=200 * MiB)
    assert len(bomb) < 300_000
    tracemalloc.start()
    try:
        found = read_message(_latency(bomb))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * MiB
    (error,) = found.errors
    assert "corrupt HDR histogram" in error and "inflates beyond the 140 bytes" in error
    assert Measurement("latency_pdr50_forward_min", "us", (1.0,)) in found.measurements


def test_a_histogram_stating_more_counts_than_hdrh_allows_is_refused() -> None:
    found = read_message(_latency(_histogram(stated=5 * MiB, inflated=10)))
    (error,) = found.errors
    assert "states 5,242,880 bytes of counts, over hdrh's maximum" in error


def test_histograms_count_against_max_expanded_bytes(tmp_path: Path) -> None:
    heavy = _histogram(stated=3 * MiB, inflated=3 * MiB)
    tests = rf7_test("t1") + rf7_test("t2", _latency(heavy))
    path = write(tmp_path, "job__1__output.xml", rf7(tests))
    assert load_here(path).builds  # within the default 1 GiB
    dataset = load_here(path, limits=ReadLimits(max_expanded_bytes=2 * MiB))
    assert dataset.builds == []
    assert f"{path}: expands beyond max_expanded_bytes (2,097,152 bytes)" in messages(dataset)
