"""Cache scopes that no build uses any more leave the cache folder after a while.

The cache keeps some things per scope: a store's decoded copies per store
and read settings (``decoded/<scope>/``), a source's groupings per grouping
settings (``classified/<scope>.*``).  A changed setting starts a new scope
and leaves the old one behind, and at CSIT's size a scope is half a
gigabyte; a CI job that keeps its cache folder between runs would collect
one per change for good.  So every use of a scope marks it used (its
modification time), and each use also removes its siblings that no build
has used for :data:`UNUSED_FOR`: long enough for a site built weekly, or a
branch built now and then, to keep its own scopes, while a setting changed
for good costs its old scope's space only for a month.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

UNUSED_FOR = timedelta(days=30)


def use_scope(folder: Path, scope: str, scope_of: Callable[[str], str] = lambda name: name) -> None:
    """Mark the entries of ``folder`` that ``scope_of`` maps to ``scope`` used now,
    and remove every entry whose scope no entry of it has been used in :data:`UNUSED_FOR`.

    ``scope_of`` names an entry's scope (by default the entry's own name: a
    folder per scope).  A cache that cannot be pruned costs only space, so
    no error here ends a build.
    """
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return  # no cache folder yet
    now = time.time()
    newest: dict[str, float] = {}
    for entry in entries:
        owner = scope_of(entry.name)
        if owner == scope:
            with contextlib.suppress(OSError):
                os.utime(entry.path, (now, now))
            continue
        with contextlib.suppress(OSError):
            mtime = entry.stat(follow_symlinks=False).st_mtime
            newest[owner] = max(newest.get(owner, mtime), mtime)
    oldest_kept = now - UNUSED_FOR.total_seconds()
    for entry in entries:
        owner = scope_of(entry.name)
        if owner == scope or newest.get(owner, now) >= oldest_kept:
            continue
        with contextlib.suppress(OSError):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)


def scope_folder(folder: Path, *scope: object) -> Path:
    """The folder below ``folder`` of the settings ``scope`` (named by their hash),
    marked used by :func:`use_scope`."""
    name = hashlib.sha256(json.dumps(scope, default=str).encode()).hexdigest()[:16]
    use_scope(folder, name)
    return folder / name
