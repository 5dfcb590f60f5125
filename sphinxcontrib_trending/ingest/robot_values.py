"""Where the values of a Robot Framework test are, when it is not a CSIT test.

CSIT writes results into the test message in fixed wordings
(:mod:`~sphinxcontrib_trending.ingest.results`).  Other projects' tests say
what they measured in their own words, so a source can name the place:

* a regular expression searched in the test message, or in the messages of
  one keyword (every match is one trial, in document order); each named
  group is a metric, and the group ``value`` is the source's metric;
* the test's elapsed time, the built-in metric ``elapsed`` (seconds).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from lxml import etree

from sphinxcontrib_trending.ingest.model import Measurement
from sphinxcontrib_trending.ingest.results import MessageResults, read_message
from sphinxcontrib_trending.ingest.timestamps import parse_elapsed, parse_robot_time

ELAPSED = "elapsed"
"""The built-in metric: a passed test's elapsed time in seconds."""

VALUE_GROUP = "value"
"""The named group that stands for the source's own metric."""

_IGNORED = re.compile(r"[\s_]+")


def keyword_key(name: str) -> str:
    """Robot Framework matches keyword names ignoring case, spaces and underscores."""
    return _IGNORED.sub("", name).lower()


@dataclass(frozen=True)
class ValueRule:
    """How to read a passed test's measurements.

    Without a ``pattern`` the CSIT message wordings apply; with one, only
    the pattern does.  ``keyword`` (a :func:`keyword_key`) moves the search
    from the test message to the messages of that keyword, wherever it runs
    in the test.  ``metric`` and ``unit`` name what the ``value`` group holds;
    ``metric == "elapsed"`` adds the elapsed time.
    """

    pattern: re.Pattern[str] | None = None
    keyword: str | None = None
    metric: str = "mrr"
    unit: str = ""

    def measure(self, test: etree._Element, status: etree._Element, message: str) -> MessageResults:
        if self.pattern is None:
            found = read_message(message)
        else:
            found = self._searched(self.pattern, test, message)
        if self.metric != ELAPSED:
            return found
        seconds = _elapsed(status)
        if seconds is None:
            return replace(found, errors=(*found.errors, "no elapsed time"))
        elapsed = Measurement(ELAPSED, "s", (seconds,))
        return replace(found, measurements=(*found.measurements, elapsed))

    def _searched(
        self, pattern: re.Pattern[str], test: etree._Element, message: str
    ) -> MessageResults:
        texts = [message] if self.keyword is None else list(self._keyword_messages(test))
        values: dict[str, list[float]] = {}
        errors: list[str] = []
        for text in texts:
            for match in pattern.finditer(text):
                for group, raw in match.groupdict().items():
                    number = _number(raw)
                    if number is not None:
                        values.setdefault(group, []).append(number)
                    elif raw is not None:
                        errors.append(
                            f"value pattern group {group!r} matched {raw!r}, not a number"
                        )
        measurements = tuple(
            Measurement(self.metric if group == VALUE_GROUP else group, self.unit, tuple(numbers))
            for group, numbers in values.items()
        )
        return MessageResults(measurements, tuple(errors))

    def _keyword_messages(self, test: etree._Element) -> Iterator[str]:
        """Messages logged inside every run of the keyword, each once."""
        seen: set[etree._Element] = set()
        for keyword in test.iter("kw"):
            if not self._is_wanted(keyword):
                continue
            for message in keyword.iter("msg"):
                if message not in seen and message.text:
                    seen.add(message)
                    yield message.text

    def _is_wanted(self, keyword: etree._Element) -> bool:
        name = keyword.get("name", "")
        owner = keyword.get("owner") or keyword.get("library")
        names = {name, name.rpartition(".")[2]} | ({f"{owner}.{name}"} if owner else set())
        return self.keyword in {keyword_key(candidate) for candidate in names}


def _number(raw: str | None) -> float | None:
    try:
        number = float(raw) if raw is not None else math.nan
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _elapsed(status: etree._Element) -> float | None:
    """Seconds a test ran: RF 7 ``elapsed``, else ``endtime`` - ``starttime``."""
    elapsed = parse_elapsed(status.get("elapsed"))
    if elapsed is not None:
        return elapsed.total_seconds()
    start = parse_robot_time(status.get("starttime"))
    end = parse_robot_time(status.get("endtime"))
    return None if start is None or end is None else (end - start).total_seconds()
