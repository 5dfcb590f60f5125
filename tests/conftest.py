"""Shared fixtures: Sphinx's own testing fixtures and the test-site roots."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ("sphinx.testing.fixtures",)

ROOTS = Path(__file__).resolve().parent / "roots"


@pytest.fixture(scope="session")
def rootdir() -> Path:
    return ROOTS
