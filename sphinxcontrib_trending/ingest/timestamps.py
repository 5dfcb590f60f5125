"""Timestamps of every input format, read as timezone-aware UTC datetimes.

Robot Framework writes naive local wall-clock times; archives carry no zone,
so they are taken as UTC (the CSIT convention).  An explicit offset in CSV or
JSON Lines input is honoured and converted to UTC, so all builds of one
dataset compare and sort on one clock.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

UTC = timezone.utc


class TimeRangeError(ValueError):
    """A time the calendar cannot hold (``elapsed="1e20"``, year 9999 plus a day)."""


def as_utc(moment: datetime) -> datetime:
    """Naive means UTC; an aware time is converted to UTC."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def parse_robot_time(text: str | None) -> datetime | None:
    """Read either Robot Framework timestamp style; ``None`` for N/A or junk.

    RF <= 6 writes ``20190410 18:56:05.494``; RF 7 writes ISO 8601
    (``2024-05-01T10:00:00.123456``).  The old form is sliced by hand because
    ``strptime`` costs ten times more and runs once per test.
    """
    if not text or text == "N/A":
        return None
    try:
        if len(text) >= 17 and text[8] == " ":
            millis = text[18:21] if len(text) > 18 else "0"
            return datetime(
                int(text[0:4]),
                int(text[4:6]),
                int(text[6:8]),
                int(text[9:11]),
                int(text[12:14]),
                int(text[15:17]),
                int(millis.ljust(3, "0")) * 1000,
                tzinfo=UTC,
            )
        return as_utc(datetime.fromisoformat(text))
    except (ValueError, OverflowError):
        return None


def parse_elapsed(text: str | None) -> timedelta | None:
    """RF 7 ``elapsed`` attribute: seconds as a decimal string.

    Raises :class:`TimeRangeError` for a number no timedelta can hold, so the
    reader reports it instead of taking a wrong time.
    """
    if text is None:
        return None
    try:
        return timedelta(seconds=float(text))
    except ValueError:
        return None
    except OverflowError:
        raise TimeRangeError(f"elapsed time {text!r} is out of range") from None


def add_elapsed(start: datetime, elapsed: timedelta) -> datetime:
    """``start + elapsed``, or :class:`TimeRangeError` past the calendar's end."""
    try:
        return start + elapsed
    except OverflowError:
        raise TimeRangeError(f"start {start.isoformat()} plus {elapsed} is out of range") from None


def parse_iso_or_epoch(text: str) -> datetime:
    """A CSV/JSONL ``time``: ISO 8601 (``Z`` allowed) or Unix epoch seconds.

    Raises ``ValueError`` with a message fit for the user when it is neither.
    """
    stripped = text.strip()
    try:
        return datetime.fromtimestamp(float(stripped), tz=UTC)
    except (ValueError, OverflowError, OSError):
        pass
    if stripped.endswith(("Z", "z")):
        stripped = stripped[:-1] + "+00:00"
    try:
        return as_utc(datetime.fromisoformat(stripped))
    except (ValueError, OverflowError):
        raise ValueError(f"time {text!r} is neither ISO 8601 nor Unix epoch seconds") from None


def format_time(moment: datetime) -> str:
    """ISO 8601 with an explicit ``+00:00``, the one form the project writes."""
    return as_utc(moment).isoformat()
