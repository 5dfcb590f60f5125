"""Which job, build and testbed a document belongs to.

CSIT puts the job and build number in the archive's name, not in the XML,
so identity comes from names: the member's, then the archive's.  A name a
user's pattern does not match still yields a build (named after the file and
its time) with a ``data`` problem, so a misconfigured pattern loses nothing.
Output of plain Robot Framework runs does not follow the CSIT naming: when
the default pattern matches no name, the run names itself (its top suite,
its time) and nothing is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import PurePosixPath

from sphinxcontrib_trending.ingest.read_options import ReadOptions

DEFAULT_BUILD_PATTERN = r"(?P<job>[^/\\]+?)__(?P<build>[^/\\_]+)__[^/\\]*$"
"""CSIT archives are named ``{job}__{build}__output_info.xml.gz``."""

_EXTENSIONS = re.compile(r"(\.(xml|csv|jsonl|ndjson|json|tar|zip|tgz|txz|gz|xz|bz2))+$", re.I)


def stem(name: str) -> str:
    """``a/b/job__1__output_info.xml.gz`` -> ``job__1__output_info``."""
    base = PurePosixPath(name.replace("\\", "/")).name
    return _EXTENSIONS.sub("", base) or base


def identify(
    pattern: re.Pattern[str],
    names: list[str],
    time: datetime,
    run_name: str | None = None,
) -> tuple[str, str, str | None]:
    """(job, build, complaint): the first name the pattern matches wins.

    ``run_name`` is what a document calls itself (a Robot Framework top
    suite): when the default pattern matches no name, it is the job, the
    build is the time, and there is no complaint.
    """
    for name in names:
        found = pattern.search(name)
        if found:
            groups = found.groupdict()
            job = groups.get("job") or stem(name)
            build = groups.get("build") or _time_label(time)
            return job, build, None
    if run_name and pattern.pattern == DEFAULT_BUILD_PATTERN:
        return run_name, _time_label(time), None
    fallback = names[0]
    job, build = stem(fallback), _time_label(time)
    complaint = (
        f"name does not match the build pattern {pattern.pattern!r}; "
        f"using job {job!r} and build {build!r}"
    )
    return job, build, complaint


def _time_label(time: datetime) -> str:
    """``20240501T020000Z``; with the fraction when there is one, so that two
    runs ending in the same second are two builds, not one duplicate."""
    fraction = f".{time.microsecond:06d}" if time.microsecond else ""
    return time.strftime("%Y%m%dT%H%M%S") + fraction + "Z"


_TOPOLOGY = re.compile(r"\d+n[a-z]*", re.IGNORECASE)
"""A CSIT topology: ``2n``, ``3n``, and the ``3na``/``3nb`` of two testbeds of one kind."""


def csit_testbed(job: str) -> str | None:
    """The testbed csit-dash reads from a CSIT job name, or None for any other name.

    csit-dash takes the job name's last two dash-separated parts, topology
    and architecture (``csit-vpp-perf-mrr-daily-master-3na-spr``: ``3na-spr``);
    an external lab's job names them after an ``x`` part
    (``...-x-2n-foo-...``: all that follows).  The first of them must look
    like a topology, so a job that is not CSIT's (``nightly-build``) has no
    testbed rather than a made-up one.
    """
    parts = job.split("-")
    named = parts[parts.index("x", 1) + 1 :] if "x" in parts[1:-1] else parts[-2:]
    if len(named) < 2 or not _TOPOLOGY.fullmatch(named[0]) or not all(named):
        return None
    return "-".join(named)


def build_testbed(options: ReadOptions, job: str, addresses: Iterable[str | None]) -> str | None:
    """A build's testbed when its data names none: the source's ``testbed``
    pattern on the job name, else its address map on the hosts' ``addresses``;
    with neither set, :func:`csit_testbed`, as csit-dash names it."""
    found = _testbed_from_job(options, job) or next(
        (named for address in addresses if (named := _testbed_from_address(options, address))),
        None,
    )
    if found or options.testbed_pattern is not None or options.testbed_map:
        return found
    return csit_testbed(job)


def _testbed_from_job(options: ReadOptions, job: str) -> str | None:
    if options.testbed_pattern is None:
        return None
    found = options.testbed_pattern.search(job)
    if found is None:
        return None
    if "testbed" in found.re.groupindex:
        return found["testbed"]
    return found.group(0)


def _testbed_from_address(options: ReadOptions, address: str | None) -> str | None:
    if address is None:
        return None
    return dict(options.testbed_map).get(address)
