"""A real HTTP server on 127.0.0.1 whose answers a test writes by hand, misbehaving at will."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Answer = Callable[[BaseHTTPRequestHandler, int], None]
"""Writes the whole answer to the n-th request (counted from 1)."""


@contextlib.contextmanager
def serving() -> Iterator[Callable[[Answer], str]]:
    """``start(answer)`` serves ``answer`` and returns a URL to it; all servers stop at exit."""
    servers: list[ThreadingHTTPServer] = []

    def start(answer: Answer) -> str:
        count = [0]

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                count[0] += 1
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    answer(self, count[0])

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/job__1__output.xml"

    try:
        yield start
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def send(handler: BaseHTTPRequestHandler, body: bytes, status: int = 200, **headers: str) -> None:
    """A well-formed answer; ``Content_Type="x"`` sends the header ``Content-Type: x``."""
    handler.send_response(status)
    for name, value in headers.items():
        handler.send_header(name.replace("_", "-"), value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)
