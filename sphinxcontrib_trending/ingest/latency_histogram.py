"""Percentiles of a latency's HDR histogram, decoded with the ``hdrhistogram`` package.

CSIT's traffic generator reports each stream's latency as ``min/avg/max``
plus the whole distribution as an encoded HdrHistogram (``HISTF...``, base64
of a compressed payload).  The tails say more than the average does, so the
percentiles of :data:`~sphinxcontrib_trending.ingest.metrics.LATENCY_PERCENTILES`
are kept as measurements beside min/avg/max.

The payload is zlib data, so a 15 KB string can inflate to gigabytes, and
``hdrh`` inflates it in one call.  It is first inflated here in bounded steps,
charged to the input's ``max_expanded_bytes``, and refused when it grows past
the length its own header states (at most ``hdrh``'s 4 MiB of counts).
"""

from __future__ import annotations

import base64
import struct
import zlib

from hdrh import codec
from hdrh.histogram import HdrHistogram

from sphinxcontrib_trending.ingest.limits import Budget, charged_budget
from sphinxcontrib_trending.ingest.metrics import LATENCY_PERCENTILES
from sphinxcontrib_trending.ingest.model import Measurement

_CORRUPT = (
    ValueError,  # base64 (binascii.Error), non-ASCII text, word size
    RuntimeError,
    IndexError,
    TypeError,
    zlib.error,
    codec.HdrCookieException,
    codec.HdrLengthException,
    codec.HdrHistogramSettingsException,
)
"""What ``HdrHistogram.decode`` raises on a damaged string, by cause."""

_STEP = 64 * 1024
_PAYLOAD_START = struct.Struct(">II")
"""The inflated payload opens with its cookie and the length of the counts that follow."""


def percentiles(encoded: str, base: str, unit: str) -> tuple[Measurement, ...]:
    """``{base}_p50`` ... ``{base}_p999`` from ``encoded``; nothing for an empty string.

    Raises ``ValueError`` saying what is wrong with a string that does not
    decode, so the caller can report it and keep min/avg/max.  A histogram
    with no samples gives no percentile (its zeros would be no measurement).
    """
    histogram = _decoded(encoded, base)
    if histogram is None:
        return ()
    return tuple(
        Measurement(f"{base}_{name}", unit, (float(histogram.get_value_at_percentile(level)),))
        for name, level in LATENCY_PERCENTILES.items()
    )


def distribution(encoded: str, base: str) -> tuple[tuple[float, float], ...]:
    """Each recorded value with the percentile reached at it, lowest first.

    The whole distribution, step by step, is what a percentile graph draws;
    empty for an empty string or a histogram without samples.  Raises
    ``ValueError`` as :func:`percentiles` does.
    """
    histogram = _decoded(encoded, base)
    if histogram is None:
        return ()
    return tuple(
        (float(step.percentile_level_iterated_to), float(step.value_iterated_to))
        for step in histogram.get_recorded_iterator()
    )


def _decoded(encoded: str, base: str) -> HdrHistogram | None:
    """The histogram ``encoded`` holds, inflated within the input's budget; None if empty."""
    text = encoded.strip()
    if not text:
        return None
    padded = text + "=" * (-len(text) % 4)  # CSIT's messages drop base64 padding
    try:
        _inflate_bounded(padded.encode("ascii"), charged_budget())
        histogram = HdrHistogram.decode(padded.encode("ascii"))
    except _CORRUPT as error:
        shown = text if len(text) <= 40 else f"{text[:37]}..."
        raise ValueError(
            f"corrupt HDR histogram {shown!r} for {base}: {str(error) or type(error).__name__}"
        ) from None
    if histogram is None or histogram.get_total_count() == 0:
        return None
    return histogram


def _inflate_bounded(encoded: bytes, budget: Budget) -> None:
    """Inflates the payload piece by piece, keeping none of it, to learn its true size.

    Raises ``ValueError`` when it outgrows its stated length (so ``hdrh`` never
    sees it) and lets :class:`~sphinxcontrib_trending.ingest.limits.LimitExceeded`
    through when the input's budget is spent, refusing the input like any bomb.
    """
    compressed = base64.b64decode(encoded)[codec.ext_header_size :]
    decoder = zlib.decompressobj()
    head = b""
    stated: int | None = None
    size = 0
    pending = compressed
    while piece := decoder.decompress(pending, _STEP):
        pending = decoder.unconsumed_tail
        size += len(piece)
        budget.spend(len(piece))
        if stated is None and len(head) < _PAYLOAD_START.size:
            head += piece[: _PAYLOAD_START.size]
            if len(head) >= _PAYLOAD_START.size:
                counts = _PAYLOAD_START.unpack_from(head)[1]
                if counts > codec.MAX_COUNTS_SIZE:
                    raise ValueError(f"states {counts:,} bytes of counts, over hdrh's maximum")
                stated = codec.payload_header_size + counts
        if stated is not None and size > stated:
            raise ValueError(f"inflates beyond the {stated:,} bytes its header states")
