"""On-disk cache of parsed inputs: one JSON entry per input file.

An entry is addressed by what the input *is* (its path and the reading
options), and valid while what the input *contains* has not changed (size,
modification time, parser version).  So a new archive costs one parse, a
changed one replaces its own entry, and stale entries never pile up.
Entries are untrusted (a cache folder can be shared, committed or edited):
one that fails to decode, holds a value of the wrong type or a value the
parser would have screened out (1e300, a time in year 9999) is reported
and re-parsed, never used.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sphinxcontrib_trending.ingest.atomic import write_atomically
from sphinxcontrib_trending.ingest.codec import (
    build_from_json,
    build_to_json,
    problem_from_json,
    problem_to_json,
)
from sphinxcontrib_trending.ingest.model import Build, Problem
from sphinxcontrib_trending.ingest.plausible import screen

CACHE_FORMAT = "sphinxcontrib-trending/parsed-input"


@dataclass(frozen=True)
class CacheKey:
    """``identity`` names the entry; ``state`` must match for it to be used."""

    identity: dict[str, Any]
    state: dict[str, Any]

    @property
    def file_name(self) -> str:
        text = json.dumps(self.identity, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest() + ".json"


@dataclass(frozen=True)
class Parsed:
    builds: list[Build]
    problems: list[Problem]


class ParseCache:
    """Without a folder every lookup misses and nothing is written."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def get(self, key: CacheKey) -> tuple[Parsed | None, Problem | None]:
        """The cached parse, or why the entry could not be used (None: plain miss)."""
        if self.folder is None:
            return None, None
        path = self.folder / key.file_name
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None, None
        except OSError as error:
            return None, Problem(str(path), f"unreadable cache entry, re-parsed: {error}", "cache")
        try:
            entry = json.loads(raw)
            if entry.get("format") != CACHE_FORMAT or entry.get("identity") != key.identity:
                raise ValueError("not an entry of this cache")
            if entry.get("state") != key.state:
                return None, None
            parsed = Parsed(
                [build_from_json(build) for build in entry["builds"]],
                [problem_from_json(problem) for problem in entry["problems"]],
            )
            implausible: list[Problem] = []
            screen(parsed.builds, implausible)
            if implausible:
                raise ValueError(implausible[0].message)
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
            return None, Problem(
                str(path), f"corrupt or foreign cache entry, re-parsed: {error}", "cache"
            )
        return parsed, None

    def put(self, key: CacheKey, parsed: Parsed) -> Problem | None:
        if self.folder is None:
            return None
        entry = {
            "format": CACHE_FORMAT,
            "identity": key.identity,
            "state": key.state,
            "builds": [build_to_json(build) for build in parsed.builds],
            "problems": [problem_to_json(problem) for problem in parsed.problems],
        }
        try:
            write_atomically(self.folder / key.file_name, [json.dumps(entry).encode()])
        except OSError as error:
            return Problem(str(self.folder), f"cannot write the parse cache: {error}", "cache")
        return None
