"""Fixtures of the hostile-input tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.hostile.http_server import Answer, serving


@pytest.fixture
def serve() -> Iterator[Callable[[Answer], str]]:
    """``serve(answer)``: the URL of a local server answering with ``answer``."""
    with serving() as start:
        yield start
