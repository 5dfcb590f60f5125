"""http(s) sources: downloaded once per build, re-validated, usable offline.

Each URL has a file in the downloads folder and a sidecar with the ETag and
Last-Modified the server sent, so the next build asks "changed since?" and
usually gets a bodiless 304.  When the network or the server fails, the last
good copy is used and a ``source`` problem says so: a docs build must not
break because a CI server is down.

Within one round (a Sphinx build, a CLI run) a URL is fetched once and every
caller gets the same bytes, even from a server whose ETag changes on every
request; :func:`new_round` starts the next round.  A body is capped at
``max_download_bytes`` after any Content-Encoding is undone (decoded here, in
bounded steps, so a gzip bomb cannot expand in memory), and a whole download
at ``download_seconds``, however slowly the server trickles.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import requests

from sphinxcontrib_trending.ingest.atomic import write_atomically
from sphinxcontrib_trending.ingest.limits import DEFAULT_LIMITS, ReadLimits
from sphinxcontrib_trending.ingest.model import Problem

TIMEOUT = (10, 120)
_CHUNK = 64 * 1024
_ENCODINGS = {"gzip": 47, "x-gzip": 47, "deflate": 47}
"""zlib window bits: 32 + 15 reads a gzip or zlib header, whichever comes."""


class DownloadRefused(requests.RequestException):
    """The answer broke a limit or made no sense; the cached copy (if any) is used."""


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


_this_round: dict[tuple[Path, str], Fetched] = {}


def new_round() -> None:
    """Forget what was fetched: the next fetch of each URL asks the server again."""
    _this_round.clear()


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
        self.folder = folder
        self.session = session or requests.Session()
        self.limits = limits

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
        """The local copy of ``url``, fetched at most once per round."""
        key = (self.folder, url)
        if key not in _this_round:
            _this_round[key] = self._fetch(url)
        return _this_round[key]

    def _fetch(self, url: str) -> Fetched:
        local = self.local_path(url)
        known = self.validators(url)
        headers = {"Accept-Encoding": ", ".join(_ENCODINGS)}
        if known.get("etag"):
            headers["If-None-Match"] = known["etag"]
        if known.get("last_modified"):
            headers["If-Modified-Since"] = known["last_modified"]
        deadline = time.monotonic() + self.limits.download_seconds
        timeout = (TIMEOUT[0], min(TIMEOUT[1], self.limits.download_seconds))
        try:
            with self._answer(url, headers, timeout, deadline) as response:
                if response.status_code == 304:
                    if known:
                        return Fetched(local)
                    raise DownloadRefused("304 Not Modified to a request that had no validators")
                response.raise_for_status()
                write_atomically(local, self._body(response, deadline))
                meta = {
                    "url": url,
                    "etag": response.headers.get("ETag"),
                    "last_modified": response.headers.get("Last-Modified"),
                }
                write_atomically(self._sidecar(url), [json.dumps(meta).encode()])
                return Fetched(local)
        except (requests.RequestException, OSError) as error:
            return self._fallback(url, local, error)

    def _answer(
        self, url: str, headers: dict[str, str], timeout: tuple[float, float], deadline: float
    ) -> requests.Response:
        """The response once its headers are in, or DownloadRefused at the deadline.

        The request runs in a helper thread because a server can trickle its
        headers too, and a blocked receive cannot be interrupted: past the
        deadline the helper is abandoned (it closes what it gets, if it ever
        does) and the build goes on.
        """
        outcome: dict[str, Any] = {}
        lock = threading.Lock()

        def ask() -> None:
            try:
                response = self.session.get(url, headers=headers, stream=True, timeout=timeout)
            except BaseException as error:  # handed to the waiting thread
                outcome["error"] = error
                return
            with lock:
                if outcome.get("abandoned"):
                    response.close()
                else:
                    outcome["response"] = response

        helper = threading.Thread(target=ask, name=f"download {url}", daemon=True)
        helper.start()
        helper.join(max(0.0, deadline - time.monotonic()))
        with lock:
            if helper.is_alive() and "response" not in outcome:
                outcome["abandoned"] = True
                raise _too_slow(self.limits)
        if "error" in outcome:
            raise outcome["error"]
        return outcome["response"]

    def _body(self, response: requests.Response, deadline: float) -> Iterator[bytes]:
        """The decoded body in bounded pieces; raises past the size cap or the deadline."""
        received = 0
        for piece in _decoded(_arrivals(response), response.headers.get("Content-Encoding")):
            received += len(piece)
            if received > self.limits.max_download_bytes:
                raise DownloadRefused(
                    f"larger than max_download_bytes ({self.limits.max_download_bytes:,} bytes)"
                )
            if time.monotonic() > deadline:
                raise _too_slow(self.limits)
            yield piece

    def _fallback(self, url: str, local: Path, error: Exception) -> Fetched:
        if local.exists():
            message = f"download failed ({error}); using the cached copy"
            return Fetched(local, Problem(url, message, "source"))
        return Fetched(None, Problem(url, f"download failed and no cached copy: {error}", "source"))


def _too_slow(limits: ReadLimits) -> DownloadRefused:
    return DownloadRefused(f"took longer than download_seconds ({limits.download_seconds:g} s)")


def _arrivals(response: requests.Response) -> Iterator[bytes]:
    """The raw body as it arrives: ``read1`` returns whatever one receive brought,
    so a trickling server cannot hide past the deadline inside one long read."""
    raw = response.raw
    while piece := raw.read1(_CHUNK, decode_content=False):
        yield piece


def _decoded(pieces: Iterator[bytes], encoding: str | None) -> Iterator[bytes]:
    name = (encoding or "identity").strip().lower()
    if name == "identity":
        yield from pieces
        return
    if name not in _ENCODINGS:
        raise DownloadRefused(f"unsupported Content-Encoding {encoding!r}")
    decoder = zlib.decompressobj(_ENCODINGS[name])
    try:
        for piece in pieces:
            data = piece
            while data:
                yield decoder.decompress(data, _CHUNK)  # never more than _CHUNK at once
                data = decoder.unconsumed_tail
        while not decoder.eof and (rest := decoder.decompress(b"", _CHUNK)):
            yield rest
    except zlib.error as error:
        raise DownloadRefused(f"corrupt {name} Content-Encoding: {error}") from None
