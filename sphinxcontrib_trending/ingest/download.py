"""http(s) sources: downloaded once per build, re-validated, usable offline.

Each URL has a file in the downloads folder and a sidecar with the ETag and
Last-Modified the server sent, so the next build asks "changed since?" and
usually gets a bodiless 304.  When the network or the server fails, the last
good copy is used and a ``source`` problem says so: a docs build must not
break because a CI server is down.

Within one round (a Sphinx build, a CLI run) a URL is fetched once and every
caller gets the same bytes, even from a server whose ETag changes on every
request; :func:`.downloaded.new_round` starts the next round.  The round is recorded in
the URL's sidecar, under a lock, so processes forked within one round (the
parallel readers of ``sphinx-build -j N``) also share a single download.  A body is capped at
``max_download_bytes`` after any Content-Encoding is undone (decoded here, in
bounded steps, so a gzip bomb cannot expand in memory), and a whole download
at ``download_seconds``, however slowly the server trickles.  A server that
goes quiet for ``download_idle_seconds``, or a body cut short (closed early,
reset, a broken chunk), fails that URL alone, with a ``source`` problem.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinxcontrib_trending.ingest.atomic import write_atomically
from sphinxcontrib_trending.ingest.downloaded import (
    Fetched,
    current_round,
    local_path,
    read_sidecar,
    sidecar,
    this_round,
    validators,
)
from sphinxcontrib_trending.ingest.limits import DEFAULT_LIMITS, ReadLimits
from sphinxcontrib_trending.ingest.model import Problem

if TYPE_CHECKING:
    import requests


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock between processes (none where ``fcntl`` does not exist)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


_TEMPORARY_PREFIX = "trending-downloads-"


def temporary_folder(stack: ExitStack) -> Path:
    """A downloads folder for a run without a cache, removed when ``stack`` closes.

    Its name carries the process id, so a folder left by a killed run (whose
    process is gone) is recognised and removed by the next run.
    """
    base = Path(tempfile.gettempdir())
    for leftover in base.glob(f"{_TEMPORARY_PREFIX}*-*"):
        owner = leftover.name.removeprefix(_TEMPORARY_PREFIX).split("-", 1)[0]
        if owner.isdigit() and not _alive(int(owner)):
            shutil.rmtree(leftover, ignore_errors=True)
    prefix = f"{_TEMPORARY_PREFIX}{os.getpid()}-"
    return Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=prefix)))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process
        return True
    return True


class Downloads:
    def __init__(
        self,
        folder: Path,
        session: requests.Session | None = None,
        limits: ReadLimits = DEFAULT_LIMITS,
    ) -> None:
        """``session`` defaults to a new one, made at the first fetch (see :mod:`.http_fetch`)."""
        self.folder = folder
        self._session = session
        self.limits = limits

    def local_path(self, url: str) -> Path:
        return local_path(self.folder, url)

    def validators(self, url: str) -> dict[str, Any]:
        """What the server last said about this URL (empty when never fetched)."""
        return validators(self.folder, url)

    def fetch(self, url: str) -> Fetched:
        """The local copy of ``url``, fetched at most once per round, by any process."""
        key = (self.folder, url)
        if key not in this_round:
            local = self.local_path(url)
            with _locked(local.with_name(local.name + ".lock")):
                if self._fetched_this_round(url):
                    this_round[key] = Fetched(local)
                else:
                    this_round[key] = self._fetch(url)
        return this_round[key]

    def _fetched_this_round(self, url: str) -> bool:
        """Another process of this round (a forked reader) has already fetched it."""
        meta = read_sidecar(self.folder, url)
        return (
            meta is not None
            and meta.get("round") == current_round()
            and self.local_path(url).exists()
        )

    def _fetch(self, url: str) -> Fetched:
        from sphinxcontrib_trending.ingest import http_fetch  # only where a URL is fetched

        if self._session is None:
            self._session = http_fetch.new_session()
        local = self.local_path(url)
        known = self.validators(url)
        headers = {"Accept-Encoding": http_fetch.ACCEPT_ENCODING}
        if known.get("etag"):
            headers["If-None-Match"] = known["etag"]
        if known.get("last_modified"):
            headers["If-Modified-Since"] = known["last_modified"]
        deadline = time.monotonic() + self.limits.download_seconds
        try:
            with http_fetch.answer(self._session, url, headers, self.limits, deadline) as response:
                if response.status_code == 304:
                    if known:
                        self._write_sidecar(url, known)
                        return Fetched(local)
                    raise http_fetch.DownloadRefused(
                        "304 Not Modified to a request that had no validators"
                    )
                response.raise_for_status()
                write_atomically(local, http_fetch.body(response, self.limits, deadline))
                validators = {
                    "etag": response.headers.get("ETag"),
                    "last_modified": response.headers.get("Last-Modified"),
                }
                self._write_sidecar(url, validators)
                return Fetched(local)
        except (http_fetch.FetchError, OSError) as error:
            return self._fallback(url, local, error)

    def _write_sidecar(self, url: str, validators: dict[str, Any]) -> None:
        meta = {"url": url, **validators, "round": current_round()}
        write_atomically(sidecar(self.folder, url), [json.dumps(meta).encode()])

    def _fallback(self, url: str, local: Path, error: Exception) -> Fetched:
        if local.exists():
            message = f"download failed ({error}); using the cached copy"
            return Fetched(local, Problem(url, message, "source"))
        return Fetched(None, Problem(url, f"download failed and no cached copy: {error}", "source"))
