"""One flat record per degradation report, shared by every output of a comparison.

``check --baseline``'s table, JSON and JUnit XML and the
``trending-degradation`` directive's table all say the same things about a
report (which test, against which build, what changed, how sure); building
them here, once, keeps the gate and the site from disagreeing.  As Perun
does, "No Change" is left out of what people read unless they ask for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sphinxcontrib_trending.analysis.build_selection import build_name
from sphinxcontrib_trending.analysis.degradation import NO_CHANGE
from sphinxcontrib_trending.analysis.degradation.builds import BuildComparison
from sphinxcontrib_trending.analysis.history import history_key
from sphinxcontrib_trending.analysis.identity import SeriesRef
from sphinxcontrib_trending.reports.junit import Case, Suite
from sphinxcontrib_trending.reports.text import columns


@dataclass(frozen=True)
class DegradationRecord:
    """The facts of one report; numbers stay raw, in the data's unit.

    ``from_value``/``to_value`` are numbers, or model names for the
    model-order method; ``baseline`` is the ``JOB/BUILD`` compared with, None
    when no build qualified; ``key`` identifies the test's graph.
    """

    test_id: str
    name: str
    key: SeriesRef
    result: str
    subtype: str
    method: str
    baseline: str | None
    from_value: float | str | None
    to_value: float | str | None
    relative_change: float | None
    confidence_type: str
    confidence: float | None
    reason: str

    def as_json(self) -> dict[str, Any]:
        fields = asdict(self)
        fields["from"] = fields.pop("from_value")
        fields["to"] = fields.pop("to_value")
        del fields["key"]
        return fields


@dataclass(frozen=True)
class TargetRecords:
    """The records of one target build."""

    job: str
    build: str
    name: str
    time: datetime
    records: tuple[DegradationRecord, ...]

    @property
    def caption(self) -> str:
        return f"{self.name} ({self.time:%Y-%m-%d %H:%M} UTC)"

    def shown(self, no_change: bool) -> tuple[DegradationRecord, ...]:
        """The records people read: all, or all but No Change."""
        return tuple(r for r in self.records if no_change or r.result != NO_CHANGE)


def target_records(comparison: BuildComparison) -> TargetRecords:
    target = comparison.target
    records = []
    for report in comparison.reports:
        baseline = comparison.baselines.get(report.location)
        records.append(
            DegradationRecord(
                test_id=report.location,
                name=comparison.names.get(report.location, report.location),
                key=SeriesRef(comparison.metric, history_key(target.testbed, report.location)),
                result=report.result,
                subtype=report.subtype,
                method=report.method,
                baseline=build_name(baseline.job, baseline.build) if baseline else None,
                from_value=report.from_value,
                to_value=report.to_value,
                relative_change=report.relative_change,
                confidence_type=report.confidence_type,
                confidence=report.confidence,
                reason=report.reason,
            )
        )
    name = build_name(target.job, target.build)
    return TargetRecords(target.job, target.build, name, target.time, tuple(records))


def _number(value: float | str | None) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else f"{value:.6g}"


def text_table(
    targets: Sequence[TargetRecords],
    fail_on: frozenset[str],
    no_change: bool = False,
    gate: bool = True,
) -> list[str]:
    """One table per target; No Change rows only with ``no_change``, counted at the end.

    ``gate`` False is for the history of ``--all``, whose results do not
    decide the job: its closing line counts them without saying so.
    """
    lines = []
    for target in targets:
        lines.append(f"Target {target.caption}:")
        rows = [["", "RESULT", "TEST", "BASELINE", "FROM", "TO", "CHANGE", "CONFIDENCE"]]
        for record in target.shown(no_change):
            change = record.relative_change
            rows.append(
                [
                    "FAIL" if record.result in fail_on else "pass",
                    record.result,
                    record.name,
                    record.baseline or "-",
                    _number(record.from_value),
                    _number(record.to_value),
                    "" if change is None else f"{change * 100:+.2f}%",
                    ""
                    if record.confidence is None
                    else f"{record.confidence:.3f} {record.confidence_type}",
                ]
            )
        if len(rows) > 1:
            lines += ["  " + line.rstrip() for line in columns(rows)]
    records = [record for target in targets for record in target.records]
    failed = sum(record.result in fail_on for record in records)
    hidden = 0 if no_change else sum(record.result == NO_CHANGE for record in records)
    verdict = "fail the job" if gate else "over all builds are in --fail-on-change"
    lines.append(
        f"{failed} of {len(records)} comparisons {verdict} ({', '.join(sorted(fail_on))})"
        + (f"; {hidden} No Change not listed (--verbose lists them)." if hidden else ".")
    )
    return lines


def json_document(
    targets: Sequence[TargetRecords], fail_on: frozenset[str], mode: str = "baseline"
) -> dict[str, Any]:
    """Every record, No Change included: scripts filter for themselves."""
    return {
        "mode": mode,
        "fail_on": sorted(fail_on),
        "targets": [
            {
                "job": target.job,
                "build": target.build,
                "time": target.time.isoformat(),
                "reports": [record.as_json() for record in target.records],
            }
            for target in targets
        ],
    }


def _case(target: TargetRecords, record: DegradationRecord, fail_on: frozenset[str]) -> Case:
    failing = record.result in fail_on
    return Case(
        classname=f"{target.job}.{record.method or 'none'}",
        name=record.name,
        failure_type=record.result if failing else None,
        failure_message=f"{record.result} ({record.subtype}): {record.reason}" if failing else "",
        output=f"{record.result} ({record.subtype}) against {record.baseline or 'no baseline'}",
    )


def junit_suites(targets: Sequence[TargetRecords], fail_on: frozenset[str]) -> list[Suite]:
    """One suite per target and one case per record, failed when its result is in ``fail_on``."""
    return [
        Suite(
            name=f"degradation {target.name}",
            cases=[_case(target, record, fail_on) for record in target.records],
            timestamp=target.time,
        )
        for target in targets
    ]
