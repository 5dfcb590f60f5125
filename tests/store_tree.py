"""A results store's files and their bytes, to compare two stores byte for byte."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from sphinxcontrib_trending.ingest.store.checked import CHECKED_NAME
from sphinxcontrib_trending.ingest.store.manifest import MANIFEST_NAME

MARKS = {"_lock", CHECKED_NAME}
"""Files about this machine's use of a store, not its content: the lock, and the
note of which files were checked (their inodes and times differ from copy to copy)."""


def store_tree(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` by its relative path, but the :data:`MARKS`."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name not in MARKS
    }


def vouch_for(store: Path, victim: Path) -> None:
    """Make the store's manifest list ``victim`` as it now is (size and SHA-256).

    What a planter who edits the manifest too would do: the rows' own
    checks, not the manifest's, must then refuse the file.
    """
    raw = victim.read_bytes()
    relative = victim.relative_to(store).as_posix()
    path = store / MANIFEST_NAME
    manifest = json.loads(path.read_text())
    for entry in manifest["inputs"].values():
        entry["files"] = [
            [name, len(raw), hashlib.sha256(raw).hexdigest()] if name == relative else [name, *rest]
            for name, *rest in entry["files"]
        ]
    path.write_text(json.dumps(manifest))
