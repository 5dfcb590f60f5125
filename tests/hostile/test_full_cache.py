"""A cache folder whose disk fills up during the build: the site is built without it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOTS
from tests.sphinxext import datasets

HOOK = Path(__file__).parent / "full_disk"
REPO = Path(__file__).resolve().parents[2]


def _build(
    src: Path, out: Path, cache: Path, *options: str, full: bool
) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HOOK), str(REPO)]))
    if full:
        environment["FULL_DISK_UNDER"] = str(cache)
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", *options,
         "-D", f"trending_cache_dir={cache}", str(src), str(out)],
        capture_output=True, text=True, check=False, env=environment, timeout=600,
    )  # fmt: skip


def test_a_full_disk_under_the_cache_warns_once_and_builds_the_same_site(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOTS / "test-trending", src)
    datasets.write(src / "data", range(1, 31))
    cache = tmp_path / "cache"
    cache.mkdir()  # the folder exists and takes a probe: only its disk is full
    full = _build(src, tmp_path / "full", cache, full=True)
    assert full.returncode == 0, full.stderr
    classified = cache / "classified"
    said = [line for line in full.stderr.splitlines() if f"cache folder {classified}" in line]
    assert len(said) == 1, full.stderr
    assert "No space left on device" in said[0]
    assert "Traceback" not in full.stderr
    fine = _build(src, tmp_path / "fine", tmp_path / "fine-cache", full=False)
    assert fine.returncode == 0, fine.stderr
    for page in ("dashboard.html", "graphs.html", "degradation.html"):
        assert (tmp_path / "full" / page).read_text() == (tmp_path / "fine" / page).read_text()
    strict = _build(src, tmp_path / "strict", cache, "-W", full=True)
    assert strict.returncode == 1
    assert "Traceback" not in strict.stderr
