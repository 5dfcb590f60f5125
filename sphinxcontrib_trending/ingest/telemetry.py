"""A CSIT test's telemetry (OpenMetrics samples) as series to trend.

CSIT's tests read VPP's counters after each trial and keep them, one
sample a line, as ``name{label='v',...} value timestamp``: label values
single-quoted (the exporter swaps the double quotes for single ones), the
timestamp in milliseconds.  Newer documents hold the same lines as one
string, base64 of the zlib-compressed text.  Each sample name and label set
of a test is a series; its metric is the name prefixed with ``telemetry:``
and followed by its labels, sorted and quoted as OpenMetrics writes them::

    telemetry:calls_total{name="ip4-input",thread_id="1"}

so that two label sets are two series wherever a metric names one (a
history, the store, a cache key) and the labels travel with the metric
name.  :func:`split_series` gives the name and the labels back.  Samples
are read a line at a time, so one malformed line costs only itself: by
``prometheus_client``'s text parser, or by a strict pattern for the plain
lines CSIT writes (see :func:`_parsed`).
"""

from __future__ import annotations

import binascii
import math
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from sphinxcontrib_trending.ingest.metrics import metric_unit
from sphinxcontrib_trending.ingest.model import Measurement

PREFIX = "telemetry:"
"""What every telemetry metric's name starts with."""

_COMPRESSED = re.compile(r"[A-Za-z0-9+/=]+")
"""The compressed form: base64 without line breaks; a sample line always has a space."""


@dataclass(frozen=True, slots=True)
class Telemetry:
    """One test's telemetry series, and what was wrong with its telemetry."""

    measurements: tuple[Measurement, ...]
    errors: tuple[str, ...]


def series_metric(name: str, labels: Mapping[str, str]) -> str:
    """``telemetry:name{a="1",b="2"}``: one spelling for one name and label set."""
    if not labels:
        return f"{PREFIX}{name}"
    quoted = ",".join(f'{key}="{_escaped(labels[key])}"' for key in sorted(labels))
    return f"{PREFIX}{name}{{{quoted}}}"


def _escaped(value: str) -> str:
    if not _SPECIAL.search(value):
        return value
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


_SPECIAL = re.compile(r'[\\\n"]')


def split_series(metric: str) -> tuple[str, dict[str, str]]:
    """A metric's name without its labels, and the labels (none for other metrics)."""
    if not metric.startswith(PREFIX) or not metric.endswith("}") or "{" not in metric:
        return metric, {}
    line = f"{metric.removeprefix(PREFIX)} 0"
    sample = _plain_sample(line)
    if sample is None:  # escapes in a label value: the parser undoes them
        try:
            [sample] = _samples(f"{line}\n")
        except ValueError:
            return metric, {}
    return f"{PREFIX}{sample.name}", dict(sample.labels)


def asked_for(metric: str, metrics: Sequence[str]) -> bool:
    """Whether a read of ``metrics`` wants the series ``metric``: named whole, or by its name."""
    return metric in metrics or split_series(metric)[0] in metrics


def read_telemetry(entries: Sequence[str], max_bytes: int, max_series: int) -> Telemetry:
    """Every sample of a test's ``telemetry`` as a measurement of its series.

    ``entries`` are sample lines, or one compressed string of them.  The
    text may expand to ``max_bytes`` and hold ``max_series`` series; past
    either cap the rest is left out and said so.  A series sampled more
    than once (a counter read after each trial) keeps each value as a trial.
    """
    if not entries:
        return Telemetry((), ())
    try:
        text = _text(entries, max_bytes)
    except ValueError as error:
        return Telemetry((), (f"telemetry: {error}",))
    errors: list[str] = []
    series: dict[str, list[float]] = {}
    unmeasured = 0
    for sample in _parsed(text, errors):
        value = sample.value
        if not math.isfinite(value):
            unmeasured += 1
            continue
        metric = series_metric(sample.name, sample.labels)
        values = series.get(metric)
        if values is None:
            if len(series) == max_series:
                errors.append(
                    f"telemetry holds more than max_telemetry_series ({max_series:,}) "
                    "series: the first are kept; raise the source's limit to keep more"
                )
                break
            values = series[metric] = []
        values.append(value)
    if unmeasured:
        errors.append(f"telemetry: {unmeasured:,} sample(s) with no finite value left out")
    return Telemetry(
        tuple(
            Measurement(metric, metric_unit(metric), tuple(values))
            for metric, values in series.items()
        ),
        tuple(errors),
    )


def _text(entries: Sequence[str], max_bytes: int) -> str:
    """The sample lines as one text, within ``max_bytes`` (ValueError if not)."""
    if len(entries) == 1 and _COMPRESSED.fullmatch(entries[0].strip()):
        return _decompressed(entries[0], max_bytes)
    size = sum(len(entry) + 1 for entry in entries)
    if size > max_bytes:
        raise ValueError(_too_big(max_bytes))
    return "\n".join(entries)


def _decompressed(encoded: str, max_bytes: int) -> str:
    try:
        packed = binascii.a2b_base64(encoded.strip().encode("ascii"))
        unpacker = zlib.decompressobj()
        data = unpacker.decompress(packed, max_bytes + 1)
    except (binascii.Error, zlib.error) as error:
        raise ValueError(f"not base64 of zlib-compressed text: {error}") from None
    if len(data) > max_bytes:
        raise ValueError(_too_big(max_bytes))
    if not unpacker.eof:
        raise ValueError("not base64 of zlib-compressed text: the compressed data is cut short")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"decompressed telemetry is not UTF-8 text: {error}") from None


def _too_big(max_bytes: int) -> str:
    return (
        f"expands beyond max_telemetry_bytes ({max_bytes:,} bytes): left out; "
        "raise the source's limit to read it"
    )


def _parsed(text: str, errors: list[str]) -> list[_Sample]:
    """Every sample of ``text``, in order; a malformed line is left out and reported.

    A line in the plain form every CSIT sample has (no escapes in label
    values, a decimal value, an integer timestamp) is read by
    :data:`_PLAIN`, over ten times faster than the parser walks it a
    character at a time (a test may hold tens of thousands of samples);
    any other line is the parser's, which also judges what is malformed.
    """
    found: list[_Sample] = []
    malformed: list[str] = []
    for line in text.splitlines():
        if not _is_sample(line):
            continue
        line = _double_quoted(line)
        plain = _plain_sample(line)
        if plain is not None:
            found.append(plain)
            continue
        try:
            found.extend(_samples(line + "\n"))
        except ValueError as error:
            shown = line if len(line) <= 80 else f"{line[:77]}..."
            malformed.append(f"{shown!r}: {error}")
    if malformed:
        more = f" (and {len(malformed) - 1:,} more, left out)" if len(malformed) > 1 else ""
        errors.append(f"telemetry: malformed sample line {malformed[0]}{more}")
    return found


_LABEL = r'(?!__)[a-zA-Z_][a-zA-Z0-9_]*="[^"\\\n]*"'
"""A label of the plain form; a name starting ``__`` is reserved, and the parser's to refuse."""
_PLAIN = re.compile(
    r"(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)"
    rf"(?:\{{(?P<labels>(?:{_LABEL},)*(?:{_LABEL})?)\}})?"
    r" (?P<value>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
    r"(?: -?\d+)?"
)
"""A sample line in its plain form: the parser reads such a line to the same sample."""
_LABELS = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"')


def _plain_sample(line: str) -> _Sample | None:
    """The sample of a line in :data:`_PLAIN` form, None for any other (a label twice too)."""
    found = _PLAIN.fullmatch(line)
    if found is None:
        return None
    pairs = _LABELS.findall(found["labels"] or "")
    labels = dict(pairs)
    if len(labels) != len(pairs):
        return None
    return _Sample(found["name"], labels, float(found["value"]))


def _is_sample(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _double_quoted(line: str) -> str:
    """CSIT's single-quoted label values as the OpenMetrics text's double-quoted ones."""
    if "'" not in line or '"' in line:
        return line
    return line.replace("\\'", '\\"').replace("'", '"')


class _Sample(NamedTuple):
    """What a parsed sample line gives: its name, labels and value."""

    name: str
    labels: dict[str, str]
    value: float


def _samples(text: str) -> list[_Sample]:
    """The samples of ``text``; ``ValueError`` for any line the parser refuses.

    The parser is imported on first use: ``prometheus_client`` brings its
    HTTP exposition along, a quarter second no build without telemetry pays.
    """
    from prometheus_client.parser import text_string_to_metric_families

    try:
        return [
            _Sample(sample.name, dict(sample.labels), float(sample.value))
            for family in text_string_to_metric_families(text)
            for sample in family.samples
        ]
    except (ValueError, IndexError, KeyError, TypeError) as error:
        raise ValueError(str(error) or type(error).__name__) from None


@dataclass(frozen=True, slots=True)
class LabelMatcher:
    """``key=value`` (the label equals the value) or ``key=~regex`` (it matches whole).

    A series without the label has it empty, as in Prometheus selectors, so
    ``key=`` picks the series that lack it.
    """

    key: str
    value: str
    regex: re.Pattern[str] | None = None

    def matches(self, labels: Mapping[str, str]) -> bool:
        found = labels.get(self.key, "")
        return found == self.value if self.regex is None else bool(self.regex.fullmatch(found))

    def __str__(self) -> str:
        return f"{self.key}{'=~' if self.regex is not None else '='}{self.value}"


_MATCHER = re.compile(r"(?P<key>[A-Za-z_][A-Za-z0-9_]*)=(?P<regex>~)?(?P<value>.*)", re.DOTALL)


def parse_label_matchers(text: str) -> tuple[LabelMatcher, ...]:
    """The matchers of a ``:labels:`` option: whitespace-separated ``key=value`` or ``key=~re``.

    ``ValueError`` names a matcher that is neither, or a regex that does not compile.
    """
    matchers = []
    for item in text.split():
        found = _MATCHER.fullmatch(item)
        if found is None:
            raise ValueError(f"{item!r} is not key=value or key=~regex")
        regex = None
        if found["regex"]:
            try:
                regex = re.compile(found["value"])
            except re.error as error:
                raise ValueError(f"{item!r}: bad regular expression: {error}") from None
        matchers.append(LabelMatcher(found["key"], found["value"], regex))
    return tuple(matchers)


def matching_series(
    metrics: Sequence[str], metric: str, matchers: Sequence[LabelMatcher]
) -> list[str]:
    """The telemetry series among ``metrics`` of ``metric``'s name whose labels pass all matchers.

    Labels ``metric`` spells itself (``telemetry:x{a="1"}``) must be there too.
    """
    name, wanted = split_series(metric)
    found = []
    for candidate in metrics:
        if candidate != name and not candidate.startswith(f"{name}{{"):
            continue
        candidate_name, labels = split_series(candidate)
        if candidate_name != name:
            continue
        if all(labels.get(key) == value for key, value in wanted.items()) and all(
            matcher.matches(labels) for matcher in matchers
        ):
            found.append(candidate)
    return found


def differing_labels(series: Sequence[str]) -> dict[str, list[str]]:
    """Each label whose value is not the same in all ``series``, with its values, sorted."""
    labelled = [split_series(metric)[1] for metric in series]
    keys = sorted({key for labels in labelled for key in labels})
    values = {key: sorted({labels.get(key, "") for labels in labelled}) for key in keys}
    return {key: found for key, found in values.items() if len(found) > 1}
