"""URL sources against a loopback HTTP server: download, revalidate, fall back."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from sphinxcontrib_trending.ingest import SourceSpec, fingerprint, load
from sphinxcontrib_trending.ingest.downloaded import new_round
from sphinxcontrib_trending.ingest.store.manifest import read_manifest
from tests.ingest.conftest import RF7_DAILY

ARCHIVES = sorted(RF7_DAILY.glob("*.xml.gz"))


@dataclass
class Site:
    """What the server serves and what it was asked."""

    files: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    requests: list[tuple[str, str | None, int]] = field(default_factory=list)
    base: str = ""


@pytest.fixture
def site() -> Iterator[Site]:
    state = Site()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            found = state.files.get(self.path)
            condition = self.headers.get("If-None-Match")
            if found is None:
                status, body = 404, b"missing"
            elif condition == found[1]:
                status, body = 304, b""
            else:
                status, body = 200, found[0]
            state.requests.append((self.path, condition, status))
            self.send_response(status)
            if found is not None:
                self.send_header("ETag", found[1])
                self.send_header("Last-Modified", "Wed, 01 May 2024 02:00:00 GMT")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def _serve(site: Site, index: int, etag: str) -> str:
    path = f"/job/{ARCHIVES[index].name}"
    site.files[path] = (ARCHIVES[index].read_bytes(), etag)
    return site.base + path


def test_download_then_revalidate_with_etag(site: Site, tmp_path: Path) -> None:
    url = _serve(site, 0, '"v1"')
    spec = SourceSpec(paths=(url,))
    first = load(spec, cache_dir=tmp_path)
    assert first.problems == []
    (build,) = first.builds
    assert (build.job, build.build, build.origin) == (
        "csit-vpp-perf-mrr-daily-master-2n-skx",
        "101",
        url,
    )
    (local,) = first.files
    assert Path(local).parent == tmp_path / "downloads" and Path(local).exists()
    new_round()  # the next build
    second = load(spec, cache_dir=tmp_path)
    assert second.builds == first.builds
    assert [status for *_rest, status in site.requests] == [200, 304]
    assert site.requests[1][1] == '"v1"'
    manifest, _ = read_manifest(tmp_path / "store")
    (entry,) = manifest.entries.values()
    assert entry.identity["input"] == url and entry.validators["etag"] == '"v1"'


def test_changed_content_is_fetched_and_changes_the_fingerprint(site: Site, tmp_path: Path) -> None:
    url = _serve(site, 0, '"v1"')
    spec = SourceSpec(paths=(url,))
    first = load(spec, cache_dir=tmp_path)
    before = fingerprint(spec, cache_dir=tmp_path)
    site.files[url.removeprefix(site.base)] = (ARCHIVES[1].read_bytes(), '"v2"')
    new_round()
    again = load(spec, cache_dir=tmp_path)
    # The name still says build 101; the content (and so the time and version) is new.
    assert [b.build for b in again.builds] == ["101"]
    assert again.builds[0].time > first.builds[0].time
    assert again.builds[0].dut_version != first.builds[0].dut_version
    assert [status for *_rest, status in site.requests] == [200, 200]
    assert fingerprint(spec, cache_dir=tmp_path) != before


def test_network_failure_falls_back_to_the_cached_copy(site: Site, tmp_path: Path) -> None:
    url = _serve(site, 0, '"v1"')
    spec = SourceSpec(paths=(url,))
    good = load(spec, cache_dir=tmp_path)
    site.files.clear()  # the server now answers 404
    new_round()
    offline = load(spec, cache_dir=tmp_path)
    assert offline.builds == good.builds
    (problem,) = offline.problems
    assert problem.subtype == "source" and problem.origin == url
    assert "using the cached copy" in problem.message


def test_unreachable_url_without_copy_is_a_source_problem(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/never__1__output.xml.gz"  # discard port: connection refused
    dataset = load(SourceSpec(paths=(url, str(ARCHIVES[0]))), cache_dir=tmp_path)
    assert len(dataset.builds) == 1
    (problem,) = dataset.problems
    assert (problem.subtype, problem.origin) == ("source", url)
    assert "no cached copy" in problem.message


def test_without_cache_dir_downloads_go_to_a_temporary_place(site: Site) -> None:
    url = _serve(site, 2, '"v1"')
    dataset = load(SourceSpec(paths=(url,)))
    assert [b.build for b in dataset.builds] == ["103"]
    assert dataset.files == []  # the temporary copy is gone: nothing to watch
