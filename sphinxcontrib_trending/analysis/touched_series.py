"""Which series the data gained since a site's last build, told from where builds were read.

A CSIT site rebuilds when one testbed's job has run: a tenth of its series
gained a run, and the pages that graph only the others would come out the
same.  Builds read from a store know the data files they came from, and
those files are named by their content (:attr:`.StoredTests.provenance`), so
the builds a site has not shown before are those whose files it did not
read last time.  Anything less certain (a build parsed without a store, a
file read before and gone now) says that any series may have changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from sphinxcontrib_trending.analysis.history import history_key
from sphinxcontrib_trending.ingest.model import Build
from sphinxcontrib_trending.ingest.store.stored_tests import StoredTests

Provenance = frozenset[tuple[str, ...]]
"""The data files of every build of a source, each build's as one sorted tuple of names."""


@dataclass(frozen=True)
class Touched:
    """The builds read from files not read before, and the series their tests belong to."""

    builds: list[Build]
    keys: frozenset[str]
    """History keys (:func:`.history_key`): a test on a testbed, whatever the metric."""


def provenance_of(builds: Sequence[Build]) -> Provenance | None:
    """Where every build was read from; None when a build's files are not known."""
    found = set()
    for build in builds:
        tests = build.tests
        names = tests.provenance if type(tests) is StoredTests else ()
        if not names:
            return None
        found.add(names)
    return frozenset(found)


def touched_series(
    builds: Sequence[Build], before: Provenance | None, now: Provenance | None
) -> Touched | None:
    """What the builds read from files not read ``before`` hold (``now``: :func:`provenance_of`).

    None when that cannot be told: no earlier provenance, a build whose
    files are not known, or files read before that are not read now (an
    input changed, went or fell out of a window), since any series may then
    have changed.
    """
    if before is None or now is None or not before <= now:
        return None
    new = [build for build in builds if cast(StoredTests, build.tests).provenance not in before]
    keys = {
        history_key(build.testbed, test_id)
        for build in new
        for test_id in cast(StoredTests, build.tests).test_ids()
    }
    return Touched(new, frozenset(keys))
