"""The verdict rules applied to jumpavg 0.4.2's own groupings: a test-only oracle.

Judging run ``k`` groups the runs up to ``k`` only; the run gets the label of
its group when that group starts at ``k`` or did not exist one measured run
earlier, else Normal.  With the reference library doing the grouping, this is
what ``check --all --search jumpavg`` must reproduce, and the slow way the
reference would have to compute it (one ``classify`` per prefix).
"""

from __future__ import annotations

import jumpavg


def _boundaries(prefix: list[float | None]) -> dict[int, str]:
    """Run index -> label of every group after the first, in jumpavg's grouping."""
    present = [index for index, value in enumerate(prefix) if value is not None]
    classified = jumpavg.classify([prefix[index] for index in present])
    starts: dict[int, str] = {}
    position = 0
    for number, group in enumerate(classified):
        if number:
            starts[present[position]] = group.comment
        position += group.stats.size
    return starts


def reference_reasons(values: list[float | None]) -> list[str]:
    """The reason of every run, oldest first; None is a failed run."""
    reasons = []
    previous: dict[int, str] | None = None
    for index, value in enumerate(values):
        if value is None:
            reasons.append("Failed")
            continue
        current = _boundaries(values[: index + 1])
        last_start = max([0, *current])
        prolonged = last_start != index and previous is not None and last_start in previous
        if last_start == 0 or prolonged:
            reasons.append("Normal")
        else:
            reasons.append(current[last_start].capitalize())
        previous = current
    return reasons
