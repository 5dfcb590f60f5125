"""A real SMTP server on 127.0.0.1 (aiosmtpd), plain, STARTTLS or implicit TLS."""

from __future__ import annotations

import socket
import ssl
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, Envelope

USER = "ci-bot"
PASSWORD = "s3cret-pw"


@dataclass
class Recorder:
    """aiosmtpd handler keeping every accepted message and login attempt."""

    envelopes: list[Envelope] = field(default_factory=list)
    logins: list[tuple[str, str]] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Envelope) -> str:
        self.envelopes.append(envelope)
        return "250 Message accepted for delivery"

    def authenticate(
        self, server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any
    ) -> AuthResult:
        login = auth_data.login.decode()
        password = auth_data.password.decode()
        self.logins.append((login, password))
        return AuthResult(success=(login, password) == (USER, PASSWORD), handled=False)


@dataclass
class Server:
    """A running test server: where it listens and what it received."""

    port: int
    recorder: Recorder


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def free_port() -> Callable[[], int]:
    """A port on 127.0.0.1 nobody listens on (a server that is down)."""
    return _free_port


@pytest.fixture
def credentials() -> tuple[str, str]:
    """The only user and password the test server accepts."""
    return USER, PASSWORD


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 made with the openssl command."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert),
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-addext", "basicConstraints=critical,CA:TRUE",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


def _server_context(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*map(str, certificate))
    return context


@pytest.fixture
def start_smtp(certificate: tuple[Path, Path]) -> Iterator[Callable[..., Server]]:
    """Start servers: ``start_smtp(security="none"|"starttls"|"ssl", auth=False)``."""
    controllers: list[Controller] = []

    def start(security: str = "none", auth: bool = False) -> Server:
        recorder = Recorder()
        options: dict[str, Any] = {}
        if security == "starttls":
            options.update(tls_context=_server_context(certificate), require_starttls=True)
        if security == "ssl":
            options.update(ssl_context=_server_context(certificate))
        if auth:
            options.update(authenticator=recorder.authenticate, auth_required=True)
            options.update(auth_require_tls=security != "none")
        port = _free_port()
        controller = Controller(recorder, hostname="127.0.0.1", port=port, **options)
        controller.start()
        controllers.append(controller)
        return Server(port, recorder)

    yield start
    for controller in controllers:
        controller.stop()
