"""Changes that start where the machine changed: environment changes, not regressions.

A testbed's hosts swapped, a new traffic generator version, another NIC
firmware named in the build: performance moves with the machine, and the
code under test is not to blame.  A change whose first run ran on another
environment than the run before it (see
:mod:`~sphinxcontrib_trending.ingest.environment`) is labelled with what
changed, ``"hosts 10.30.51.55 -> 10.30.51.56"``; the gate lets it pass
unless asked not to (``check --environment-changes=fail``).

Only what both runs record is compared: data that starts recording a field
(an older archive without it) is no change of the machine.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from sphinxcontrib_trending.analysis.test_run import Run
from sphinxcontrib_trending.ingest.environment import PATTERN_PREFIX, parse_environment

LABEL = "environment change"


def machine_of(run: Run) -> dict[str, str]:
    """Everything a run records about its machine, by name (its hosts included)."""
    found = parse_environment(run.environment)
    if run.hosts:
        found["hosts"] = run.hosts
    return found


def _previous_measured(runs: Sequence[Run], start: int, skipped: Container[int]) -> int | None:
    return next(
        (
            at
            for at in range(start - 1, -1, -1)
            if runs[at].average is not None and at not in skipped
        ),
        None,
    )


def _described(name: str, old: str, new: str) -> str:
    if name == "hosts":  # name only the machines that were swapped
        before, after = old.split(), new.split()
        old = " ".join(host for host in before if host not in after) or old
        new = " ".join(host for host in after if host not in before) or new
    return f"{name.removeprefix(PATTERN_PREFIX)} {old} -> {new}"


def environment_change(runs: Sequence[Run], start: int, skipped: Container[int] = ()) -> str:
    """What changed from the measured run before ``start`` to run ``start``; "" if nothing.

    ``"hosts 10.30.51.55 -> 10.30.51.56; tg_version 3.00 -> 3.03"``: every
    field both runs record whose value differs, by name.  Runs in
    ``skipped`` (excluded ones, which the grouping did not see) are passed over.
    """
    before = _previous_measured(runs, start, skipped)
    if before is None:
        return ""
    old, new = runs[before], runs[start]
    if old.environment == new.environment and old.hosts == new.hosts:
        return ""
    was, now = machine_of(old), machine_of(new)
    return "; ".join(
        _described(name, was[name], now[name])
        for name in sorted(was.keys() & now.keys())
        if was[name] != now[name]
    )


def labelled(change: str) -> str:
    """``"environment change: hosts a -> b"``, as tables, hovers and the gate say it."""
    return f"{LABEL}: {change}"
