"""``load``, ``resolve`` and ``fingerprint``: the ingest layer's front door.

The loader owns the order of work: resolve the entries, fetch URLs, take each
input from the parse cache or parse it, then drop duplicate builds and sort.
Bad data never raises; it is reported in ``Dataset.problems`` and the rest
is still read.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from sphinxcontrib_trending.ingest.archives import MEMBER_ERRORS, Document, iter_documents
from sphinxcontrib_trending.ingest.cache import CacheKey, ParseCache, Parsed
from sphinxcontrib_trending.ingest.download import (
    Downloads,
    is_url,
    temporary_folder,
    url_path,
)
from sphinxcontrib_trending.ingest.formats import Reading
from sphinxcontrib_trending.ingest.limits import Budget, LimitExceeded, enforce
from sphinxcontrib_trending.ingest.merging import merge_builds
from sphinxcontrib_trending.ingest.model import Build, Dataset, Problem
from sphinxcontrib_trending.ingest.options import ReadOptions
from sphinxcontrib_trending.ingest.plausible import screen
from sphinxcontrib_trending.ingest.registry import input_format
from sphinxcontrib_trending.ingest.sources import resolve_entries
from sphinxcontrib_trending.ingest.spec import SourceSpec

PARSER_VERSION = "6"
"""Bump whenever the same input would parse differently: it invalidates caches."""

Progress = Callable[[str], None]


@dataclass(frozen=True)
class _Input:
    """One resolved input: how to name it to the user, where it is on disk,
    and the name the build pattern is matched against (a URL's path)."""

    origin: str
    local: Path
    naming: str


def _downloads_folder(cache_dir: Path | None, stack: ExitStack) -> Path:
    return cache_dir / "downloads" if cache_dir is not None else temporary_folder(stack)


def resolve(spec: SourceSpec) -> list[str]:
    """The concrete inputs (absolute paths, URLs) the spec matches now, sorted.

    Raises :class:`SpecError` for an unusable spec, like :func:`load`.
    """
    ReadOptions.from_spec(spec)
    return resolve_entries(spec)[0]


def fingerprint(spec: SourceSpec, cache_dir: Path | None = None) -> str:
    """A cheap hash that changes when load() could return something different.

    It covers the resolved inputs (so a new file matching a glob counts), the
    size and modification time of local files, the validators last seen for
    URLs (no network access: a URL changes the fingerprint once a load has
    fetched the new version) and the parser version.  Raises
    :class:`SpecError` for an unusable spec, like :func:`load`.
    """
    options = ReadOptions.from_spec(spec)
    downloads = Downloads(cache_dir / "downloads") if cache_dir is not None else None
    state: list[object] = [PARSER_VERSION, options.identity()]
    for entry in resolve(spec):
        if is_url(entry):
            state.append([entry, downloads.validators(entry) if downloads else None])
            continue
        try:
            info = os.stat(entry)
        except OSError:
            state.append([entry, None])
            continue
        state.append([entry, info.st_size, info.st_mtime_ns])
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


def load(
    spec: SourceSpec,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
) -> Dataset:
    """Read every input of ``spec`` into one :class:`Dataset`.

    Builds come sorted by time, then job and build number; when the same
    (job, build) appears twice the first input in resolve order is kept and a
    ``duplicate`` problem names both.  Raises :class:`SpecError` only for an
    unusable spec (bad regular expression or format).
    """
    options = ReadOptions.from_spec(spec)
    report = progress or (lambda _message: None)
    entries, problems = resolve_entries(spec)
    dataset = Dataset(problems=problems)
    cache = ParseCache(cache_dir / "parsed" if cache_dir is not None else None)
    with ExitStack() as stack:
        downloads = Downloads(_downloads_folder(cache_dir, stack), limits=options.limits)
        builds: list[Build] = []
        for number, entry in enumerate(entries, start=1):
            item = _locate(entry, downloads, dataset, report)
            if item is None:
                continue
            if cache_dir is not None or not is_url(entry):
                dataset.files.append(str(item.local))
            message = f"parsing {number}/{len(entries)}: {Path(item.naming).name}"
            parsed = _parsed(item, options, cache, dataset, lambda m=message: report(m))
            builds.extend(parsed.builds)
            dataset.problems.extend(parsed.problems)
    if input_format(options.format).merges_builds:
        builds = merge_builds(builds, dataset.problems)
    dataset.builds = _without_duplicates(builds, dataset.problems)
    dataset.builds.sort(key=lambda build: (build.time, build.job, build.build))
    return dataset


def _locate(entry: str, downloads: Downloads, dataset: Dataset, report: Progress) -> _Input | None:
    """The local file of an entry (None: a URL with neither download nor copy)."""
    if not is_url(entry):
        return _Input(entry, Path(entry), entry)
    report(f"fetching {entry}")
    fetched = downloads.fetch(entry)
    if fetched.problem is not None:
        dataset.problems.append(fetched.problem)
    return None if fetched.path is None else _Input(entry, fetched.path, url_path(entry))


def _parsed(
    item: _Input,
    options: ReadOptions,
    cache: ParseCache,
    dataset: Dataset,
    announce: Callable[[], None],
) -> Parsed:
    try:
        info = item.local.stat()
    except OSError as error:
        return Parsed([], [Problem(item.origin, f"cannot read: {error}", "source")])
    key = CacheKey(
        identity={"input": item.origin, "options": options.identity()},
        state={"size": info.st_size, "mtime_ns": info.st_mtime_ns, "parser": PARSER_VERSION},
    )
    cached, complaint = cache.get(key)
    if complaint is not None:
        dataset.problems.append(complaint)
    if cached is not None:
        return cached
    announce()
    dataset.parsed.append(item.origin)
    parsed = parse_input(item.local, item.origin, item.naming, options)
    if (failure := cache.put(key, parsed)) is not None:
        dataset.problems.append(failure)
    return parsed


def parse_input(local: Path, origin: str, naming: str, options: ReadOptions) -> Parsed:
    """Every build in one local file (plain, compressed or an archive).

    One member's error or cap spares the others; only a spent byte budget
    stops the whole input.
    """
    fmt = input_format(options.format)
    builds: list[Build] = []
    problems: list[Problem] = []
    documents = 0
    budget = Budget(options.limits.max_expanded_bytes)
    try:
        for document in iter_documents(local, fmt.is_document, budget):
            documents += 1
            reading = _reading(document, origin, naming, options)
            try:
                found, complaints = fmt.read(reading)
            except MEMBER_ERRORS as error:
                problems.append(Problem(reading.where, f"cannot read, skipped: {error}", "parse"))
                continue
            except LimitExceeded as error:
                problems.append(Problem(reading.where, str(error), "parse"))
                if budget.used > budget.limit:
                    break
                continue
            builds.extend(found)
            problems.extend(complaints)
    except (*MEMBER_ERRORS, LimitExceeded) as error:
        problems.append(Problem(origin, f"cannot read: {error}", "parse"))
    else:
        if documents == 0:
            problems.append(Problem(origin, f"archive holds no {fmt.name} results", "parse"))
    problems.extend(
        Problem(origin, f"{damage}; the data read is kept but may be corrupt", "parse")
        for damage in budget.damaged
    )
    return Parsed(screen(enforce(builds, options.limits, origin, problems), problems), problems)


def _reading(document: Document, origin: str, naming: str, options: ReadOptions) -> Reading:
    member = document.member
    return Reading(
        stream=document.stream,
        where=origin if member is None else f"{origin}!{member}",
        names=(naming,) if member is None else (member, naming),
        options=options,
    )


def _without_duplicates(builds: list[Build], problems: list[Problem]) -> list[Build]:
    kept: dict[tuple[str, str], Build] = {}
    for build in builds:
        first = kept.setdefault(build.key, build)
        if first is not build:
            problems.append(
                Problem(
                    build.origin,
                    f"build {build.job} #{build.build} is also in {first.origin}; kept that one",
                    "duplicate",
                )
            )
    return list(kept.values())
