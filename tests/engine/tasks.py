"""Tasks the real-cluster tests send to ``dask worker`` processes (imported there by name)."""

from __future__ import annotations

import time

from sphinxcontrib_trending.ingest.loader import Parsed
from sphinxcontrib_trending.ingest.tasks import ParseJob, parse_file

SECONDS_PER_TASK = 0.25


def slow_parse(job: ParseJob) -> Parsed:
    """A parse slow enough that a worker can be killed while the map is under way."""
    time.sleep(SECONDS_PER_TASK)
    return parse_file(job)


def fail_on_weekly(job: ParseJob) -> Parsed:
    if "weekly" in job.path:
        raise ValueError("this input is refused")
    return parse_file(job)
