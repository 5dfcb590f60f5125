"""A real HTTP server on 127.0.0.1 that plays a chat webhook, answer by scripted answer."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SECRET_PATH = "/services/T0SECRET/B0SECRET/xoxSECRETTOKEN"
"""Where the webhook listens: the part of its URL that must never be printed."""


@dataclass(frozen=True)
class Answer:
    status: int = 200
    body: str = "ok"
    delay: float = 0.0
    headers: tuple[tuple[str, str], ...] = ()


@dataclass
class Hook:
    """The server's address, its answers still to give, and the JSON bodies it received."""

    url: str
    answers: list[Answer]
    received: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)


def _handler(hook: Hook) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            hook.paths.append(self.path)
            hook.received.append(json.loads(self.rfile.read(length)))
            answer = hook.answers.pop(0) if hook.answers else Answer()
            time.sleep(answer.delay)
            data = answer.body.encode()
            try:
                self.send_response(answer.status)
                for name, value in answer.headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # the client gave up waiting: what a timeout test wants

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads what arrived, not a log."""

    return Handler


@contextmanager
def webhook_server(*answers: Answer) -> Iterator[Hook]:
    hook = Hook(url="", answers=list(answers))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hook))
    server.daemon_threads = True
    hook.url = f"http://127.0.0.1:{server.server_address[1]}{SECRET_PATH}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hook
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
