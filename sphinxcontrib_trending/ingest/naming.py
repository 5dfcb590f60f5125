"""Which job, build and testbed a document belongs to.

CSIT puts the job and build number in the archive's name, not in the XML,
so identity comes from names: the member's, then the archive's.  A name the
pattern does not match still yields a build (named after the file and its
time) with a ``data`` problem, so a misconfigured pattern loses nothing.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinxcontrib_trending.ingest.options import ReadOptions

_EXTENSIONS = re.compile(r"(\.(xml|csv|jsonl|ndjson|json|tar|zip|tgz|txz|gz|xz|bz2))+$", re.I)


def stem(name: str) -> str:
    """``a/b/job__1__output_info.xml.gz`` -> ``job__1__output_info``."""
    base = PurePosixPath(name.replace("\\", "/")).name
    return _EXTENSIONS.sub("", base) or base


def identify(
    pattern: re.Pattern[str], names: list[str], time: datetime
) -> tuple[str, str, str | None]:
    """(job, build, complaint): the first name the pattern matches wins."""
    for name in names:
        found = pattern.search(name)
        if found:
            groups = found.groupdict()
            job = groups.get("job") or stem(name)
            build = groups.get("build") or _time_label(time)
            return job, build, None
    fallback = names[0]
    job, build = stem(fallback), _time_label(time)
    complaint = (
        f"name does not match the build pattern {pattern.pattern!r}; "
        f"using job {job!r} and build {build!r}"
    )
    return job, build, complaint


def _time_label(time: datetime) -> str:
    return time.strftime("%Y%m%dT%H%M%SZ")


def testbed_from_job(options: ReadOptions, job: str) -> str | None:
    if options.testbed_pattern is None:
        return None
    found = options.testbed_pattern.search(job)
    if found is None:
        return None
    if "testbed" in found.re.groupindex:
        return found["testbed"]
    return found.group(0)


def testbed_from_address(options: ReadOptions, address: str | None) -> str | None:
    if address is None:
        return None
    return dict(options.testbed_map).get(address)
