"""What tests that build a site again need: a fresh process's memory, and the published files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sphinxcontrib_trending.sphinxext import process_memo


def forget_process_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the next build ran in a fresh ``sphinx-build`` process."""
    for memo in ("_loaded", "_histories", "_trends", "_series"):
        monkeypatch.setattr(process_memo, memo, {})


def published(outdir: str | os.PathLike[str]) -> dict[str, bytes]:
    """Every file a site publishes (not Sphinx's hidden ones), by its path in the site."""
    found = {}
    for folder, folders, files in os.walk(outdir):
        folders[:] = [name for name in folders if not name.startswith(".")]
        for name in files:
            if not name.startswith("."):
                path = Path(folder, name)
                found[path.relative_to(outdir).as_posix()] = path.read_bytes()
    return found
