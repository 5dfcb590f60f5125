"""What tests that build a site again need: a fresh process's memory."""

from __future__ import annotations

import pytest

from sphinxcontrib_trending.sphinxext import process_memo


def forget_process_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the next build ran in a fresh ``sphinx-build`` process."""
    for memo in ("_loaded", "_histories", "_trends", "_series"):
        monkeypatch.setattr(process_memo, memo, {})
