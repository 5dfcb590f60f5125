"""http(s) sources: downloaded once, re-validated, usable offline.

Each URL has a file in the downloads folder and a sidecar with the ETag and
Last-Modified the server sent, so the next build asks "changed since?" and
usually gets a bodiless 304.  When the network or the server fails, the last
good copy is used and a ``source`` problem says so: a docs build must not
break because a CI server is down.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import requests

from sphinxcontrib_trending.ingest.atomic import write_atomically
from sphinxcontrib_trending.ingest.model import Problem

TIMEOUT = (10, 120)
_CHUNK = 1024 * 1024


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


class Downloads:
    def __init__(self, folder: Path, session: requests.Session | None = None) -> None:
        self.folder = folder
        self.session = session or requests.Session()

    def local_path(self, url: str) -> Path:
        digest = hashlib.sha256(url.encode()).hexdigest()[:16]
        name = re.sub(r"[^A-Za-z0-9._-]", "_", Path(url_path(url)).name) or "download"
        return self.folder / f"{digest}-{name}"

    def _sidecar(self, url: str) -> Path:
        return self.local_path(url).with_name(self.local_path(url).name + ".meta.json")

    def validators(self, url: str) -> dict[str, Any]:
        """What the server last said about this URL (empty when never fetched)."""
        local = self.local_path(url)
        try:
            meta = json.loads(self._sidecar(url).read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(meta, dict) or meta.get("url") != url or not local.exists():
            return {}
        return {key: meta.get(key) for key in ("etag", "last_modified")}

    def fetch(self, url: str) -> Fetched:
        local = self.local_path(url)
        known = self.validators(url)
        headers = {}
        if known.get("etag"):
            headers["If-None-Match"] = known["etag"]
        if known.get("last_modified"):
            headers["If-Modified-Since"] = known["last_modified"]
        try:
            with self.session.get(url, headers=headers, stream=True, timeout=TIMEOUT) as response:
                if response.status_code == 304 and known:
                    return Fetched(local)
                response.raise_for_status()
                write_atomically(local, response.iter_content(_CHUNK))
                meta = {
                    "url": url,
                    "etag": response.headers.get("ETag"),
                    "last_modified": response.headers.get("Last-Modified"),
                }
                write_atomically(self._sidecar(url), [json.dumps(meta).encode()])
                return Fetched(local)
        except (requests.RequestException, OSError) as error:
            return self._fallback(url, local, error)

    def _fallback(self, url: str, local: Path, error: Exception) -> Fetched:
        if local.exists():
            message = f"download failed ({error}); using the cached copy"
            return Fetched(local, Problem(url, message, "source"))
        return Fetched(None, Problem(url, f"download failed and no cached copy: {error}", "source"))
