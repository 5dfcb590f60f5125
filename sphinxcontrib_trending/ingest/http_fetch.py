"""One HTTP GET within a download's limits: requests, urllib3 and the sockets they open.

Kept apart from :mod:`.download` (the downloads folder, its rounds and its
fallback to the last good copy) so that only a build or ingest that
fetches a URL imports an HTTP client: requests alone took a twentieth of
a second of every ``sphinx-trending ingest`` of local archives.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
import zlib
from collections.abc import Iterator
from typing import Any

import requests
import urllib3.exceptions
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from sphinxcontrib_trending.ingest.limits import ReadLimits

FetchError = requests.RequestException
"""What a failed fetch raises, besides ``OSError``: the cached copy (if any) is used."""

_CHUNK = 64 * 1024
ENCODINGS = {"gzip": 47, "x-gzip": 47, "deflate": 47}
"""zlib window bits: 32 + 15 reads a gzip or zlib header, whichever comes."""

ACCEPT_ENCODING = ", ".join(ENCODINGS)
"""The encodings a request accepts: those :func:`body` undoes."""


class DownloadRefused(requests.RequestException):
    """The answer broke a limit or made no sense; the cached copy (if any) is used."""


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


def new_session() -> requests.Session:
    session = requests.Session()
    adapter = _TrackedAdapter()
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def answer(
    session: requests.Session,
    url: str,
    headers: dict[str, str],
    limits: ReadLimits,
    deadline: float,
) -> requests.Response:
    """The response once its headers are in, or DownloadRefused at the deadline.

    The request runs in a helper thread because a server can trickle its
    headers too, and a blocked receive cannot be interrupted: past the
    deadline the helper's sockets are shut down, which ends it at once,
    and the build goes on.
    """
    idle = min(limits.download_idle_seconds, limits.download_seconds)
    timeout = (idle, idle)
    outcome: dict[str, Any] = {}
    lock = threading.Lock()

    def ask() -> None:
        try:
            response = session.get(url, headers=headers, stream=True, timeout=timeout)
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
            raise _too_slow(limits)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["response"]


def body(response: requests.Response, limits: ReadLimits, deadline: float) -> Iterator[bytes]:
    """The decoded body in bounded pieces; raises past the size cap or the deadline."""
    received = 0
    arrivals = _arrivals(response, limits)
    for piece in _decoded(arrivals, response.headers.get("Content-Encoding")):
        received += len(piece)
        if received > limits.max_download_bytes:
            raise DownloadRefused(
                f"larger than max_download_bytes ({limits.max_download_bytes:,} bytes)"
            )
        if time.monotonic() > deadline:
            raise _too_slow(limits)
        yield piece


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
    if name not in ENCODINGS:
        raise DownloadRefused(f"unsupported Content-Encoding {encoding!r}")
    decoder = zlib.decompressobj(ENCODINGS[name])
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
