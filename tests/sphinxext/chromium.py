"""Headless Chromium for the browser tests: found on PATH, or a skip with the reason.

Chromium is looked for as ``chromium``, ``chromium-browser`` and
``google-chrome``.  Without it the tests that need it skip with the reason
named, unless TRENDING_REQUIRE_BROWSER=1 (CI sets it, after installing
Chromium), which makes them fail instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import lxml.html
import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
REQUIRE = "TRENDING_REQUIRE_BROWSER"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--allow-file-access-from-files",
    "--virtual-time-budget=10000",
)


def chromium() -> str:
    found = next((path for name in BROWSERS if (path := shutil.which(name))), None)
    if found is None:
        message = f"no Chromium on PATH (looked for {', '.join(BROWSERS)})"
        if os.environ.get(REQUIRE) == "1":
            pytest.fail(f"{message}, and {REQUIRE}=1")
        pytest.skip(message)
    return found


def _run(browser: str, *arguments: str) -> str:
    completed = subprocess.run(
        [browser, *FLAGS, *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return completed.stdout


def dump_dom(browser: str, url: str, *flags: str) -> lxml.html.HtmlElement:
    """The page's DOM once its scripts have run (virtual time lets timers finish)."""
    return lxml.html.fromstring(_run(browser, *flags, "--dump-dom", url))


def screenshot(browser: str, url: str, path: Path, size: tuple[int, int], *flags: str) -> None:
    """A PNG of the page's first screen at ``size`` (width, height)."""
    _run(
        browser,
        *flags,
        "--hide-scrollbars",
        f"--window-size={size[0]},{size[1]}",
        f"--screenshot={path}",
        url,
    )
