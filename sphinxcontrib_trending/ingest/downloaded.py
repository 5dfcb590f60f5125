"""The downloads folder and the current round, readable without the HTTP client.

Every build asks whether a source changed before it decides to load
anything: a URL's part of the answer is what the server last said about it,
kept in the URL's sidecar, and a build's start opens a new round.  Neither
needs ``requests`` (a tenth of a second to import, with urllib3 and
charset_normalizer), which only a fetch does (:mod:`.download`).
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from sphinxcontrib_trending.ingest.model import Problem


def is_url(entry: str) -> bool:
    return entry.lower().startswith(("http://", "https://"))


def url_path(url: str) -> str:
    """The path part, for the build-name pattern (query strings carry no names)."""
    return unquote(urlsplit(url).path)


@dataclass(frozen=True)
class Fetched:
    """``path`` is None when there is neither a fresh nor a cached copy."""

    path: Path | None
    problem: Problem | None = None


this_round: dict[tuple[Path, str], Fetched] = {}
"""What this process fetched in the current round, by downloads folder and URL."""
_round = uuid.uuid4().hex


def new_round() -> None:
    """Forget what was fetched: the next fetch of each URL asks the server again."""
    global _round
    this_round.clear()
    _round = uuid.uuid4().hex


def current_round() -> str:
    """The round's name, written into the sidecars of the URLs it fetched."""
    return _round


def local_path(folder: Path, url: str) -> Path:
    """Where a URL's last good copy is kept: a digest of the URL and its file name."""
    digest = hashlib.sha256(url.encode()).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9._-]", "_", Path(url_path(url)).name) or "download"
    return folder / f"{digest}-{name}"


def sidecar(folder: Path, url: str) -> Path:
    local = local_path(folder, url)
    return local.with_name(local.name + ".meta.json")


def read_sidecar(folder: Path, url: str) -> dict[str, Any] | None:
    """The URL's sidecar, when it is there, readable and about this URL."""
    try:
        meta = json.loads(sidecar(folder, url).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("url") != url:
        return None
    return meta


def validators(folder: Path, url: str) -> dict[str, Any]:
    """What the server last said about this URL (empty when never fetched)."""
    meta = read_sidecar(folder, url)
    if meta is None or not local_path(folder, url).exists():
        return {}
    return {key: meta.get(key) for key in ("etag", "last_modified")}
