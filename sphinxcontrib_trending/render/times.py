"""Times in the CSV downloads: ISO 8601 in UTC, which every spreadsheet reads."""

from __future__ import annotations

from datetime import datetime, timezone


def iso_time(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat()
