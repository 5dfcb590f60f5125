"""Naming and picking builds, the same way in the gate, the comparisons and the site.

Users name a build in one syntax, ``JOB/BUILD``.  The slash is unambiguous:
job names contain dashes (``csit-vpp-perf-mrr-daily-master-2n-skx``) and
build ids taken from file names cannot contain a slash, so the last slash
always splits the two.  The older ``JOB-BUILD`` of ``check --build`` is still
understood when it names exactly one build, with a deprecation message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sphinxcontrib_trending.ingest.model import Build

SEPARATOR = "/"


class UnknownBuild(LookupError):
    """A build reference that names no build of the source, or more than one."""


def build_name(job: str, build: str) -> str:
    """The ``JOB/BUILD`` name reports show and users give back to pick that build."""
    return f"{job}{SEPARATOR}{build}"


def _dashed(builds: Sequence[Build], reference: str) -> Build | None:
    matching = [build for build in builds if f"{build.job}-{build.build}" == reference]
    return matching[-1] if matching else None


def find_build(
    builds: Sequence[Build],
    reference: str | tuple[str, str],
    deprecated: Callable[[str], None] | None = None,
) -> Build:
    """The build ``reference`` names: ``(job, build)``, ``"JOB/BUILD"`` or a bare ``"BUILD"``.

    A bare build id must be unique across jobs.  A ``"JOB-BUILD"`` reference
    is accepted when no build is called that, and ``deprecated`` gets a
    message with the new spelling.  Raises :class:`UnknownBuild`, listing the
    newest builds, when nothing or more than one job matches.
    """
    if isinstance(reference, tuple):
        job, number = reference
    elif SEPARATOR in reference:
        job, number = reference.rsplit(SEPARATOR, 1)
    else:
        job, number = None, reference
    found = [b for b in builds if b.build == number and (job is None or b.job == job)]
    if not found and job is None and (old := _dashed(builds, reference)) is not None:
        if deprecated is not None:
            deprecated(
                f"build {reference!r}: the JOB-BUILD syntax is deprecated, "
                f"write {build_name(old.job, old.build)!r}"
            )
        return old
    if not found:
        newest = ", ".join(build_name(b.job, b.build) for b in reversed(builds[-5:])) or "none"
        raise UnknownBuild(f"no build {reference!r} among {len(builds)} builds; newest: {newest}")
    jobs = sorted({b.job for b in found})
    if len(jobs) > 1:
        raise UnknownBuild(
            f"build {reference!r} is ambiguous: jobs {', '.join(jobs)}; write 'JOB/BUILD'"
        )
    return found[-1]


def newest_per_job(builds: Sequence[Build]) -> dict[str, Build]:
    """Each job's newest build; of builds at the same time, the one listed last."""
    newest: dict[str, Build] = {}
    for build in builds:
        current = newest.get(build.job)
        if current is None or build.time >= current.time:
            newest[build.job] = build
    return newest


def newest_builds(builds: Sequence[Build]) -> list[Build]:
    """The newest build of every job, by job name: what is judged when no build is named."""
    return sorted(newest_per_job(builds).values(), key=lambda build: build.job)


def builds_of_job(builds: Sequence[Build], job: str) -> list[Build]:
    """Every build of ``job``, in the order the source lists them (oldest first)."""
    return [build for build in builds if build.job == job]


def branch_build(
    builds: Sequence[Build],
    baseline_job: str,
    reference: str | None = None,
    deprecated: Callable[[str], None] | None = None,
) -> Build:
    """The branch or pull-request build judged against ``baseline_job``'s history.

    The build ``reference`` names, else the newest build of any other job:
    the one the pull request's pipeline just archived.  Raises
    :class:`UnknownBuild` when the baseline job has no build, or there is
    no other build to judge.
    """
    if not builds_of_job(builds, baseline_job):
        jobs = ", ".join(sorted({build.job for build in builds})) or "none"
        raise UnknownBuild(f"no build of the baseline job {baseline_job!r}; jobs: {jobs}")
    if reference is not None:
        target = find_build(builds, reference, deprecated)
        if target.job == baseline_job:
            raise UnknownBuild(
                f"build {reference!r} is of the baseline job {baseline_job!r} itself"
            )
        return target
    others = [build for build in builds if build.job != baseline_job]
    if not others:
        raise UnknownBuild(f"no build of a job other than the baseline job {baseline_job!r}")
    return max(others, key=lambda build: build.time)


def against_job(builds: Sequence[Build], baseline_job: str, target: Build) -> list[Build]:
    """``baseline_job``'s builds up to ``target``'s time, then ``target``: the history the
    branch build is judged on, as if the baseline job had run it next."""
    earlier = [b for b in builds_of_job(builds, baseline_job) if b.time <= target.time]
    return [*earlier, target]
