"""A URL whose answer breaks mid-way fails alone, as a ``source`` problem naming it."""

from __future__ import annotations

import json
import socket
import struct
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from sphinxcontrib_trending import cli
from sphinxcontrib_trending.cli.exits import EXIT_FAILURES
from sphinxcontrib_trending.ingest.downloaded import new_round
from sphinxcontrib_trending.ingest.limits import DEFAULT_LIMITS, ReadLimits
from tests.hostile.documents import load_here, messages, rf7, write
from tests.hostile.http_server import Answer, send

BODY = rf7().encode()


def _closed_early(handler: BaseHTTPRequestHandler, _n: int) -> None:
    """Promises 100 bytes more than it sends, then closes."""
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(BODY) + 100))
    handler.end_headers()
    handler.wfile.write(BODY)
    handler.close_connection = True


def _reset(handler: BaseHTTPRequestHandler, _n: int) -> None:
    """Half the body, then a TCP reset (linger 0 makes close send RST)."""
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(BODY)))
    handler.end_headers()
    handler.wfile.write(BODY[: len(BODY) // 2])
    handler.wfile.flush()
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.connection.close()


def _bad_chunk(handler: BaseHTTPRequestHandler, _n: int) -> None:
    """A chunked body whose first chunk size is not hexadecimal."""
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n")
    handler.close_connection = True


def _stalled(handler: BaseHTTPRequestHandler, _n: int) -> None:
    """Headers, then silence."""
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(BODY)))
    handler.end_headers()
    handler.wfile.flush()
    time.sleep(5)


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (_closed_early, "IncompleteRead("),
        (_reset, "ConnectionResetError("),
        (_bad_chunk, "IncompleteRead("),
    ],
)
def test_a_body_cut_short_fails_its_url_alone(
    serve: Callable[[Answer], str], tmp_path: Path, answer: Answer, said: str
) -> None:
    url = serve(answer)
    good = write(tmp_path / "local", "job__2__output.xml", rf7())
    dataset = load_here(url, good)
    assert [build.build for build in dataset.builds] == ["2"]
    (problem,) = dataset.problems
    assert problem.origin == url and problem.subtype == "source"
    assert "the body was cut short" in problem.message and said in problem.message


def test_a_stalled_body_fails_after_download_idle_seconds(
    serve: Callable[[Answer], str], tmp_path: Path
) -> None:
    url = serve(_stalled)
    good = write(tmp_path / "local", "job__2__output.xml", rf7())
    started = time.monotonic()
    dataset = load_here(url, good, limits=ReadLimits(download_idle_seconds=0.3))
    assert time.monotonic() - started < 3
    assert [build.build for build in dataset.builds] == ["2"]
    assert f"{url}: download failed and no cached copy: the server sent nothing for " in (
        messages(dataset)
    )
    assert "download_idle_seconds (0.3 s)" in messages(dataset)


def test_a_broken_download_keeps_the_cached_copy(
    serve: Callable[[Answer], str], tmp_path: Path
) -> None:
    url = serve(lambda handler, n: send(handler, BODY) if n == 1 else _closed_early(handler, n))
    new_round()
    assert load_here(url, cache_dir=tmp_path).problems == []
    new_round()
    dataset = load_here(url, cache_dir=tmp_path)
    assert [build.build for build in dataset.builds] == ["1"]
    assert "the body was cut short" in messages(dataset)
    assert "using the cached copy" in messages(dataset)


def test_the_default_waits_suit_a_docs_build() -> None:
    """A CI server that drips or stalls must not hold a build for ten minutes."""
    assert DEFAULT_LIMITS.download_seconds == 120
    assert DEFAULT_LIMITS.download_idle_seconds == 30


def test_the_idle_wait_is_an_option() -> None:
    limits = ReadLimits.from_mapping({"download_idle_seconds": "0.25"})
    assert limits.download_idle_seconds == 0.25


def test_a_command_reading_a_broken_url_goes_on(
    serve: Callable[[Answer], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = serve(_closed_early)
    good = write(tmp_path / "local", "job__2__output.xml", rf7())
    code = cli.main(["export", url, str(good)])
    assert code == EXIT_FAILURES
    written = capsys.readouterr()
    assert '"build": "2"' in written.out
    assert url in written.err and "the body was cut short" in written.err


def test_download_limits_leave_a_stored_input_as_it_is(tmp_path: Path) -> None:
    """Raising a download limit for a slow server parses nothing again and stores no copy."""
    data = write(tmp_path / "data", "job__1__output.xml", rf7())
    store = tmp_path / "store"
    command = ["ingest", str(data), "--store", str(store), "--quiet"]
    assert cli.main(command) == 0
    for limit in ("download_seconds=900", "download_idle_seconds=90", "max_download_bytes=9"):
        assert cli.main([*command, "--limit", limit]) == 0
    (entry,) = json.loads((store / "_manifest.json").read_text())["inputs"].values()
    assert "download_seconds" not in entry["identity"]["options"]["limits"]
