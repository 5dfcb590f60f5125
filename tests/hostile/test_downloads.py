"""URL downloads: size cap, deadline, Content-Encoding bombs, odd answers, once per round."""

from __future__ import annotations

import gzip
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from sphinxcontrib_trending.ingest.downloaded import new_round
from sphinxcontrib_trending.ingest.limits import ReadLimits
from tests.hostile.documents import load_here, messages, rf7
from tests.hostile.http_server import Answer, send


def test_a_body_over_the_size_cap_is_refused(
    serve: Callable[[Answer], str], tmp_path: Path
) -> None:
    url = serve(lambda handler, _n: send(handler, rf7().encode() + b" " * 3_000_000))
    dataset = load_here(url, cache_dir=tmp_path, limits=ReadLimits(max_download_bytes=1_000_000))
    assert dataset.builds == []
    assert "larger than max_download_bytes (1,000,000 bytes)" in messages(dataset)
    assert not [p for p in (tmp_path / "downloads").iterdir() if p.name.endswith(".xml")]


def test_a_content_encoding_gzip_bomb_is_bounded(
    serve: Callable[[Answer], str], tmp_path: Path
) -> None:
    bomb = gzip.compress(b"\0" * 30_000_000)  # 30 MB in about 30 KB
    url = serve(lambda handler, _n: send(handler, bomb, Content_Encoding="gzip"))
    dataset = load_here(url, cache_dir=tmp_path, limits=ReadLimits(max_download_bytes=1_000_000))
    assert "larger than max_download_bytes" in messages(dataset)


def test_a_gzip_content_encoding_is_decoded(serve: Callable[[Answer], str], tmp_path: Path) -> None:
    body = gzip.compress(rf7().encode())
    url = serve(lambda handler, _n: send(handler, body, Content_Encoding="gzip"))
    dataset = load_here(url, cache_dir=tmp_path)
    assert dataset.problems == [] and [b.build for b in dataset.builds] == ["1"]


def _trickle_bytes(handler: BaseHTTPRequestHandler, byte: bytes) -> None:
    for _ in range(1000):
        handler.wfile.write(byte)
        handler.wfile.flush()
        time.sleep(0.1)


def _trickle(handler: BaseHTTPRequestHandler, _n: int) -> None:
    """A body of one byte every 0.1 s."""
    handler.send_response(200)
    handler.send_header("Content-Length", "1000")
    handler.end_headers()
    _trickle_bytes(handler, b" ")


def _trickled_headers(handler: BaseHTTPRequestHandler, _n: int) -> None:
    """Headers of one byte every 0.1 s."""
    handler.wfile.write(b"HTTP/1.0 200 OK\r\n")
    _trickle_bytes(handler, b"X")


@pytest.mark.parametrize("answer", [_trickle, _trickled_headers])
def test_a_trickling_server_is_cut_off_at_the_deadline(
    serve: Callable[[Answer], str], tmp_path: Path, answer: Answer
) -> None:
    url = serve(answer)
    started = time.monotonic()
    dataset = load_here(url, cache_dir=tmp_path, limits=ReadLimits(download_seconds=0.5))
    assert time.monotonic() - started < 1.5
    assert "took longer than download_seconds (0.5 s)" in messages(dataset)


def test_a_304_to_a_first_request_is_a_source_problem(
    serve: Callable[[Answer], str], tmp_path: Path
) -> None:
    url = serve(lambda handler, _n: send(handler, b"", status=304))
    dataset = load_here(url, cache_dir=tmp_path)
    (problem,) = dataset.problems
    assert problem.subtype == "source" and "304 Not Modified" in problem.message


def _new_version_each_request(handler: BaseHTTPRequestHandler, number: int) -> None:
    """A server whose ETag and data change on every request: request N starts at N o'clock."""
    start = f"2024-05-01T0{number}:00:00.000000"
    send(handler, rf7(start=start).encode(), ETag=f'"v{number}"')


def test_a_url_is_fetched_once_per_round_whatever_its_etag(
    serve: Callable[[Answer], str], tmp_path: Path
) -> None:
    url = serve(_new_version_each_request)
    new_round()
    first, second = (load_here(url, cache_dir=tmp_path) for _ in range(2))
    assert first.builds == second.builds
    assert first.builds[0].time.hour == 1
    new_round()
    assert load_here(url, cache_dir=tmp_path).builds[0].time.hour == 2


def _first_build_hour(url_and_cache: tuple[str, Path]) -> int:
    """What a forked reader sees of the URL (run in a pool worker)."""
    return load_here(url_and_cache[0], cache_dir=url_and_cache[1]).builds[0].time.hour


def test_forked_readers_of_one_round_share_one_download(
    serve: Callable[[Answer], str], tmp_path: Path
) -> None:
    """sphinx-build -j N forks readers after the round began: one request in all."""

    url = serve(_new_version_each_request)
    new_round()
    with multiprocessing.get_context("fork").Pool(3) as pool:
        hours = pool.map(_first_build_hour, [(url, tmp_path)] * 6, chunksize=1)
    assert hours == [1] * 6
    new_round()
    assert load_here(url, cache_dir=tmp_path).builds[0].time.hour == 2


def test_an_abandoned_download_leaves_no_thread_behind(
    serve: Callable[[Answer], str], tmp_path: Path
) -> None:
    url = serve(_trickled_headers)
    dataset = load_here(url, cache_dir=tmp_path, limits=ReadLimits(download_seconds=0.5))
    assert "took longer than download_seconds" in messages(dataset)
    deadline = time.monotonic() + 3
    while _download_threads() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _download_threads() == []


def _download_threads() -> list[str]:
    return [thread.name for thread in threading.enumerate() if thread.name.startswith("download ")]


def _child(url: str, tmp_path: Path) -> subprocess.Popen[bytes]:
    """A run downloading ``url`` (which never ends), once its folder exists."""
    script = (
        "import sys; from sphinxcontrib_trending.cli import exit_on_terminate; "
        "from tests.hostile.documents import load_here\n"
        "with exit_on_terminate(): load_here(sys.argv[1])"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, url],
        env={**os.environ, "TMPDIR": str(tmp_path)},
        cwd=Path(__file__).resolve().parents[2],
    )
    deadline = time.monotonic() + 10
    while not list(tmp_path.glob("trending-downloads-*")) and time.monotonic() < deadline:
        time.sleep(0.02)
    return child


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_run_leaves_no_download_folder_behind(
    serve: Callable[[Answer], str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    how: signal.Signals,
) -> None:
    child = _child(serve(_trickle), tmp_path)
    try:
        assert list(tmp_path.glob(f"trending-downloads-{child.pid}-*"))
    finally:
        child.send_signal(how)
        child.wait()
    if how == signal.SIGTERM:  # the run cleans up itself
        assert not list(tmp_path.glob("trending-downloads-*"))
        return
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    load_here(tmp_path / "nothing-here")  # the next run cleans up after the killed one
    assert not list(tmp_path.glob(f"trending-downloads-{child.pid}-*"))
