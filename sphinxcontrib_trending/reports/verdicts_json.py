"""Verdicts as one JSON document, for scripts and dashboards outside Sphinx."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from sphinxcontrib_trending.analysis.verdicts import BuildVerdicts, Reason, Verdict
from sphinxcontrib_trending.reports.incidents import gate_incidents, incident_record
from sphinxcontrib_trending.reports.records import GraphLinks, record

SCHEMA = "sphinx-trending-check/1"


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: such a number becomes null instead of invalid JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _records(
    verdicts: Iterable[Verdict], fail_on: frozenset[Reason], links: GraphLinks
) -> list[dict[str, Any]]:
    return [
        {name: _finite(value) for name, value in record(verdict, fail_on, links).items()}
        for verdict in verdicts
    ]


def counts(verdicts: Iterable[Verdict]) -> dict[str, int]:
    """How many verdicts of each reason, every reason listed, in a fixed order."""
    found = Counter(verdict.reason for verdict in verdicts)
    return {reason.value: found.get(reason, 0) for reason in Reason}


def document(
    verdicts: Sequence[Verdict],
    fail_on: frozenset[Reason],
    links: GraphLinks,
    mode: str,
    history: Sequence[BuildVerdicts] = (),
    search: str | None = None,
) -> dict[str, Any]:
    """The whole report: the gate verdicts' incidents, the verdicts, their counts
    and, for ``--all``, the history.

    ``search`` records which grouping search produced the verdicts, since
    the two searches can disagree on a borderline change.
    """
    result: dict[str, Any] = {
        "schema": SCHEMA,
        "mode": mode,
        "search": search,
        "fail_on": sorted(reason.value for reason in fail_on),
        "result": "Fail" if any(v.fails(fail_on) for v in verdicts) else "Pass",
        "counts": counts(verdicts),
        "incidents": [incident_record(found, links) for found in gate_incidents(verdicts)],
        "verdicts": _records(verdicts, fail_on, links),
    }
    if history:
        result["history"] = [
            {
                "job": entry.job,
                "build": entry.build,
                "job_build": entry.job_build,
                "time": entry.time.isoformat(),
                "counts": counts(entry.verdicts),
                "verdicts": _records(entry.verdicts, fail_on, links),
            }
            for entry in history
        ]
    return result


def write_json(path: Path, report: dict[str, Any]) -> None:
    """Pretty-printed UTF-8; NaN is refused rather than written as invalid JSON."""
    path.write_text(
        json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8"
    )
