"""The manifest: which inputs a store holds, in which files, as of which state.

It is the store's single point of truth and its commit: data files are
written first under new names, the manifest is replaced last (write, then
rename), so a store is always the old manifest's files or the new one's.
A file the manifest does not list is not part of the store.

Each entry records the input (path or URL and the reading options: its
``identity``), the ``state`` it was parsed in (size, modification time,
parser version; a URL's ETag or Last-Modified as ``validators``), the
content's SHA-256 (a touched but unchanged file is not parsed again), the
problems its parse reported, and every data file with its size and SHA-256
(a file that changed since it was written is corrupt, never read).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sphinxcontrib_trending.ingest.atomic import write_atomically
from sphinxcontrib_trending.ingest.codec import problem_from_json, problem_to_json
from sphinxcontrib_trending.ingest.json_documents import json_bytes, json_value
from sphinxcontrib_trending.ingest.model import Problem
from sphinxcontrib_trending.ingest.store.bounded import (
    MANIFEST_MAX_BYTES,
    RefusedFile,
    read_regular,
)
from sphinxcontrib_trending.ingest.store.layout import is_our_file

MANIFEST_NAME = "_manifest.json"
MANIFEST_FORMAT = "sphinxcontrib-trending/store-manifest"
MANIFEST_VERSION = 1


def input_key(identity: dict[str, Any]) -> str:
    """The entry's name: a hash of what the input is (not of what it holds)."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True)
class DataFile:
    path: str
    """Relative to the store's root, ``/``-separated."""
    size: int
    sha256: str


@dataclass(frozen=True)
class Entry:
    identity: dict[str, Any]
    state: dict[str, Any]
    content: str
    """SHA-256 of the input's bytes."""
    files: tuple[DataFile, ...] = ()
    problems: tuple[Problem, ...] = ()
    validators: dict[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "identity": self.identity,
            "state": self.state,
            "content": self.content,
            "validators": self.validators,
            "files": [[f.path, f.size, f.sha256] for f in self.files],
            "problems": [problem_to_json(problem) for problem in self.problems],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        files = tuple(DataFile(str(path), int(size), str(sha)) for path, size, sha in data["files"])
        for data_file in files:
            if not is_our_file(data_file.path):
                raise ValueError(f"{data_file.path!r} is not a data file name of this store")
        if not all(isinstance(data[key], dict) for key in ("identity", "state")):
            raise TypeError("identity and state must be objects")
        return cls(
            identity=data["identity"],
            state=data["state"],
            content=str(data["content"]),
            files=files,
            problems=tuple(problem_from_json(problem) for problem in data["problems"]),
            validators=data["validators"],
        )


@dataclass
class Manifest:
    entries: dict[str, Entry] = field(default_factory=dict)

    def referenced(self) -> set[str]:
        return {data.path for entry in self.entries.values() for data in entry.files}

    def write(self, root: Path) -> None:
        document = {
            "format": MANIFEST_FORMAT,
            "version": MANIFEST_VERSION,
            "inputs": {key: entry.to_json() for key, entry in sorted(self.entries.items())},
        }
        write_atomically(root / MANIFEST_NAME, [json_bytes(document, indented=True)])


def parse_manifest(raw: bytes) -> Manifest:
    """Raises ``ValueError``/``KeyError``/``TypeError`` for anything but our manifest."""
    document = json_value(raw)
    if not isinstance(document, dict) or document.get("format") != MANIFEST_FORMAT:
        raise ValueError("not a store manifest")
    if document.get("version") != MANIFEST_VERSION:
        raise ValueError(f"manifest version {document.get('version')!r} is not supported")
    return Manifest({str(key): Entry.from_json(value) for key, value in document["inputs"].items()})


MANIFEST_ERRORS = (ValueError, KeyError, TypeError, AttributeError, RecursionError)


def read_manifest(root: Path) -> tuple[Manifest, Problem | None]:
    """The store's manifest; an empty one (and why) when it is missing or unusable.

    A manifest that does not decode is reported and the store starts empty:
    its files are then not part of it, and inputs are parsed again.  So is
    one that is not a regular file of at most ``MANIFEST_MAX_BYTES``; the
    next commit replaces it (a link itself, not what it points to).
    """
    path = root / MANIFEST_NAME
    try:
        raw = read_regular(path, MANIFEST_MAX_BYTES)
    except FileNotFoundError:
        return Manifest(), None
    except (OSError, RefusedFile) as error:
        message = f"unreadable store manifest, its inputs are parsed again: {error}"
        return Manifest(), Problem(str(path), message, "cache")
    try:
        return parse_manifest(raw), None
    except MANIFEST_ERRORS as error:
        message = f"corrupt or foreign store manifest, its inputs are parsed again: {error}"
        return Manifest(), Problem(str(path), message, "cache")
