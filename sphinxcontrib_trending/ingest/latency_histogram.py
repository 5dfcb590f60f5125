"""Percentiles of a latency's HDR histogram, decoded with the ``hdrhistogram`` package.

CSIT's traffic generator reports each stream's latency as ``min/avg/max``
plus the whole distribution as an encoded HdrHistogram (``HISTF...``, base64
of a compressed payload).  The tails say more than the average does, so the
percentiles of :data:`~sphinxcontrib_trending.ingest.metrics.LATENCY_PERCENTILES`
are kept as measurements beside min/avg/max.
"""

from __future__ import annotations

import zlib

from hdrh import codec
from hdrh.histogram import HdrHistogram

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


def percentiles(encoded: str, base: str, unit: str) -> tuple[Measurement, ...]:
    """``{base}_p50`` ... ``{base}_p999`` from ``encoded``; nothing for an empty string.

    Raises ``ValueError`` saying what is wrong with a string that does not
    decode, so the caller can report it and keep min/avg/max.  A histogram
    with no samples gives no percentile (its zeros would be no measurement).
    """
    text = encoded.strip()
    if not text:
        return ()
    padded = text + "=" * (-len(text) % 4)  # CSIT's messages drop base64 padding
    try:
        histogram = HdrHistogram.decode(padded.encode("ascii"))
    except _CORRUPT as error:
        shown = text if len(text) <= 40 else f"{text[:37]}..."
        raise ValueError(
            f"corrupt HDR histogram {shown!r} for {base}: {str(error) or type(error).__name__}"
        ) from None
    if histogram is None or histogram.get_total_count() == 0:
        return ()
    return tuple(
        Measurement(f"{base}_{name}", unit, (float(histogram.get_value_at_percentile(level)),))
        for name, level in LATENCY_PERCENTILES.items()
    )
