"""The readable table ``sphinx-trending check`` prints on stdout.

A CI log is read by people scrolling past hundreds of tests: by default only
the verdicts that say something (anything but Normal) are listed, worst
first, and a one-line count closes every table.
"""

from __future__ import annotations

from collections.abc import Sequence

from sphinxcontrib_trending.analysis.verdicts import (
    BuildVerdicts,
    Reason,
    Verdict,
    worst_first,
)
from sphinxcontrib_trending.display import with_testbed
from sphinxcontrib_trending.reports.records import describe, format_value
from sphinxcontrib_trending.reports.terminal import visible
from sphinxcontrib_trending.reports.verdicts_json import counts

HEADER = ("Result", "Reason", "Test", "Build", "Value", "Details")


def columns(rows: Sequence[Sequence[str]]) -> list[str]:
    """Left-aligned columns wide enough for every cell; the last one is not padded."""
    rows = [[visible(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row[:-1], widths[:-1], strict=True))
        + "  "
        + row[-1]
        for row in rows
    ]


def summary_line(verdicts: Sequence[Verdict], fail_on: frozenset[Reason]) -> str:
    found = counts(verdicts)
    listed = ", ".join(f"{number} {reason}" for reason, number in found.items() if number)
    failing = sum(verdict.fails(fail_on) for verdict in verdicts)
    result = "FAIL" if failing else "PASS"
    return f"{len(verdicts)} tests: {listed or 'none'} -> {result}"


def verdict_table(
    verdicts: Sequence[Verdict],
    fail_on: frozenset[Reason],
    verbose: bool = False,
    show_source: bool = False,
) -> list[str]:
    """The verdicts worth reading, worst first, closed by the counts and the outcome."""
    shown = [v for v in worst_first(verdicts) if verbose or v.reason is not Reason.NORMAL]
    lines = []
    if shown:
        rows = [HEADER] + [
            (
                verdict.result(fail_on),
                verdict.reason.value,
                _test_label(verdict, show_source),
                verdict.job_build,
                format_value(verdict, verdict.value),
                describe(verdict),
            )
            for verdict in shown
        ]
        lines.extend(line.rstrip() for line in columns(rows))
    lines.append(summary_line(verdicts, fail_on))
    return lines


def history_table(
    history: Sequence[BuildVerdicts],
    fail_on: frozenset[Reason],
    verbose: bool = False,
    show_source: bool = False,
) -> list[str]:
    """Build by build, newest first: where each change arrived.

    A build where nothing happened takes one line, so the builds that matter
    stand out when scrolling through a long history.
    """
    lines = []
    for entry in history:
        heading = visible(f"== {entry.job_build} ({entry.time.isoformat()})")
        table = verdict_table(entry.verdicts, fail_on, verbose, show_source)
        if len(table) == 1:
            lines.append(f"{heading}: {table[0]}")
        else:
            lines.extend([heading, *table, ""])
    return lines


def _test_label(verdict: Verdict, show_source: bool) -> str:
    history = verdict.history
    prefix = f"{verdict.source}: " if show_source else ""
    return prefix + with_testbed(history.display_name, history.testbed)
