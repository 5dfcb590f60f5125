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
import http.client
import json
import os
import shutil
import socket
import tempfile
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import requests
import urllib3.exceptions
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

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

_CHUNK = 64 * 1024
_ENCODINGS = {"gzip": 47, "x-gzip": 47, "deflate": 47}
"""zlib window bits: 32 + 15 reads a gzip or zlib header, whichever comes."""


class DownloadRefused(requests.RequestException):
    """The answer broke a limit or made no sense; the cached copy (if any) is used."""


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


class _Abortable:
    """The sockets a download thread opened, so a waiter can cut them when it gives up.

    A blocked receive cannot be interrupted from another thread, but shutting
    its socket down ends it at once; without this an abandoned helper thread
    would linger for as long as the server keeps trickling.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sockets: dict[int, list[socket.socket]] = {}
        self.abandoned: set[int] = set()

    def opened(self, sock: socket.socket | None) -> None:
        if sock is None:
            return
        thread = threading.get_ident()
        with self.lock:
            self.sockets.setdefault(thread, []).append(sock)
            cut = thread in self.abandoned
        if cut:
            _shut(sock)

    def abandon(self, thread: int | None) -> None:
        if thread is None:
            return
        with self.lock:
            self.abandoned.add(thread)
            sockets = self.sockets.pop(thread, [])
        for sock in sockets:
            _shut(sock)

    def finished(self, thread: int) -> None:
        with self.lock:
            self.sockets.pop(thread, None)
            self.abandoned.discard(thread)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


_ABORTABLE = _Abortable()


class _TrackedHTTPConnection(HTTPConnection):
    def connect(self) -> None:
        super().connect()
        _ABORTABLE.opened(self.sock)


class _TrackedHTTPSConnection(HTTPSConnection):
    def connect(self) -> None:
        super().connect()
        _ABORTABLE.opened(self.sock)


class _TrackedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _TrackedHTTPConnection


class _TrackedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _TrackedHTTPSConnection


class _TrackedAdapter(HTTPAdapter):
    """Requests' adapter, with connections whose sockets :data:`_ABORTABLE` can cut."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _TrackedHTTPPool,
            "https": _TrackedHTTPSPool,
        }


def _session() -> requests.Session:
    session = requests.Session()
    adapter = _TrackedAdapter()
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


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
        self.session = session or _session()
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
        local = self.local_path(url)
        known = self.validators(url)
        headers = {"Accept-Encoding": ", ".join(_ENCODINGS)}
        if known.get("etag"):
            headers["If-None-Match"] = known["etag"]
        if known.get("last_modified"):
            headers["If-Modified-Since"] = known["last_modified"]
        deadline = time.monotonic() + self.limits.download_seconds
        idle = min(self.limits.download_idle_seconds, self.limits.download_seconds)
        timeout = (idle, idle)
        try:
            with self._answer(url, headers, timeout, deadline) as response:
                if response.status_code == 304:
                    if known:
                        self._write_sidecar(url, known)
                        return Fetched(local)
                    raise DownloadRefused("304 Not Modified to a request that had no validators")
                response.raise_for_status()
                write_atomically(local, self._body(response, deadline))
                validators = {
                    "etag": response.headers.get("ETag"),
                    "last_modified": response.headers.get("Last-Modified"),
                }
                self._write_sidecar(url, validators)
                return Fetched(local)
        except (requests.RequestException, OSError) as error:
            return self._fallback(url, local, error)

    def _write_sidecar(self, url: str, validators: dict[str, Any]) -> None:
        meta = {"url": url, **validators, "round": current_round()}
        write_atomically(sidecar(self.folder, url), [json.dumps(meta).encode()])

    def _answer(
        self, url: str, headers: dict[str, str], timeout: tuple[float, float], deadline: float
    ) -> requests.Response:
        """The response once its headers are in, or DownloadRefused at the deadline.

        The request runs in a helper thread because a server can trickle its
        headers too, and a blocked receive cannot be interrupted: past the
        deadline the helper's sockets are shut down, which ends it at once,
        and the build goes on.
        """
        outcome: dict[str, Any] = {}
        lock = threading.Lock()

        def ask() -> None:
            try:
                response = self.session.get(url, headers=headers, stream=True, timeout=timeout)
            except BaseException as error:  # handed to the waiting thread
                outcome["error"] = error
                return
            finally:
                _ABORTABLE.finished(threading.get_ident())
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
                _ABORTABLE.abandon(helper.ident)
                raise _too_slow(self.limits)
        if "error" in outcome:
            raise outcome["error"]
        return outcome["response"]

    def _body(self, response: requests.Response, deadline: float) -> Iterator[bytes]:
        """The decoded body in bounded pieces; raises past the size cap or the deadline."""
        received = 0
        arrivals = _arrivals(response, self.limits)
        for piece in _decoded(arrivals, response.headers.get("Content-Encoding")):
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


def _arrivals(response: requests.Response, limits: ReadLimits) -> Iterator[bytes]:
    """The raw body as it arrives: ``read1`` returns whatever one receive brought,
    so a trickling server cannot hide past the deadline inside one long read.

    Reading the raw stream bypasses requests, so urllib3's and http.client's
    own errors arrive here unwrapped; they become :class:`DownloadRefused`.
    """
    raw = response.raw
    try:
        while piece := raw.read1(_CHUNK, decode_content=False):
            yield piece
    except urllib3.exceptions.ReadTimeoutError:
        if limits.download_idle_seconds >= limits.download_seconds:
            raise _too_slow(limits) from None
        raise DownloadRefused(
            f"the server sent nothing for download_idle_seconds "
            f"({limits.download_idle_seconds:g} s)"
        ) from None
    except (urllib3.exceptions.HTTPError, http.client.HTTPException) as error:
        raise DownloadRefused(f"the body was cut short ({_cause(error)})") from None


def _cause(error: Exception) -> str:
    """The innermost reason urllib3 wraps (``IncompleteRead(...)``, a reset), not its wrapper."""
    inner = error.args[-1] if error.args else None
    return repr(inner) if isinstance(inner, Exception) else str(error)


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
        if not decoder.eof:  # its checksum, at the very end, was never seen
            raise DownloadRefused(f"{name} Content-Encoding cut short before its checksum")
    except zlib.error as error:
        raise DownloadRefused(f"corrupt {name} Content-Encoding: {error}") from None
