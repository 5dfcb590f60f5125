"""Choosing the baseline build a target build is checked against.

Perun compares a version with its nearest ancestor that has a matching
profile; over CI builds that means the nearest earlier build that ran the
test.  Users also pin a baseline: a named build (a release candidate run) or
a DUT version (the last release).  All three are pure functions over builds
sorted by time.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...ingest.model import Build
from ..build_selection import find_build


def has_test(build: Build, test_id: str, metric: str | None = None) -> bool:
    """Whether ``build`` has a passed result of ``test_id`` with samples.

    A failed run carries no measurements, so it cannot serve as a baseline.
    With ``metric``, that metric must be among the measurements.
    """
    for result in build.tests:
        if result.test_id != test_id or not result.passed or not result.measurements:
            continue
        if metric is None or result.measurement(metric) is not None:
            return True
    return False


def _earlier(builds: Sequence[Build], target: Build) -> list[Build]:
    """Builds before ``target``: by list position if it is listed, else by time."""
    for position, build in enumerate(builds):
        if build.key == target.key:
            return list(builds[:position])
    return [build for build in builds if build.time < target.time]


def nearest_earlier(
    builds: Sequence[Build], target: Build, test_id: str, metric: str | None = None
) -> Build | None:
    """The latest build before ``target`` that has the test (see :func:`has_test`)."""
    for build in reversed(_earlier(builds, target)):
        if has_test(build, test_id, metric):
            return build
    return None


def latest_with_version(
    builds: Sequence[Build],
    target: Build,
    dut_version: str,
    test_id: str | None = None,
    metric: str | None = None,
) -> Build | None:
    """The latest build before ``target`` that tested ``dut_version``.

    With ``test_id``, only builds that have the test count.  Builds after the
    target never serve, so replaying history gives the verdicts it gave then.
    """
    for build in reversed(_earlier(builds, target)):
        if build.dut_version != dut_version:
            continue
        if test_id is None or has_test(build, test_id, metric):
            return build
    return None


def select_baseline(
    builds: Sequence[Build],
    target: Build,
    test_id: str,
    *,
    build: str | tuple[str, str] | None = None,
    dut_version: str | None = None,
    metric: str | None = None,
) -> Build | None:
    """The baseline for ``test_id`` in ``target``: pinned build, version, or nearest.

    An explicit ``build`` wins and is returned even if it lacks the test (the
    comparison then reports a missing baseline instead of quietly using
    another build); else ``dut_version``; else the nearest earlier build that
    has the test.  ``None`` when no build qualifies.
    """
    if build is not None and dut_version is not None:
        raise ValueError("give a baseline build or a DUT version, not both")
    if build is not None:
        return find_build(builds, build)
    if dut_version is not None:
        return latest_with_version(builds, target, dut_version, test_id, metric)
    return nearest_earlier(builds, target, test_id, metric)


def build_samples(
    build: Build, metric: str, test_ids: Sequence[str] | None = None
) -> dict[str, list[float]]:
    """Map test id to the trial values of ``metric`` in ``build``, for :func:`compare`.

    Failed tests and tests without that metric are left out, so they show up
    as a missing baseline or target in the comparison.
    """
    wanted = None if test_ids is None else set(test_ids)
    samples: dict[str, list[float]] = {}
    for result in build.tests:
        if wanted is not None and result.test_id not in wanted:
            continue
        measurement = result.measurement(metric) if result.passed else None
        if measurement is not None:
            samples[result.test_id] = list(measurement.values)
    return samples
