"""A fresh copy of a test site per test, with its data written in."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from sphinx.testing.util import SphinxTestApp

from tests.conftest import ROOTS
from tests.sphinxext import datasets

SiteFactory = Callable[..., SphinxTestApp]


@pytest.fixture
def site(tmp_path: Path, make_app: Callable[..., SphinxTestApp]) -> SiteFactory:
    """``site(root, builder="html", builds=range(1, 31), **app_kwargs)``."""

    def create(
        root: str = "trending",
        builder: str = "html",
        builds: range = range(1, datasets.BUILDS + 1),
        **kwargs: object,
    ) -> SphinxTestApp:
        srcdir = tmp_path / f"{root}-{builder}"
        if not srcdir.exists():
            shutil.copytree(ROOTS / f"test-{root}", srcdir)
            datasets.write(srcdir / "data", builds)
        return make_app(builder, srcdir=srcdir, **kwargs)

    return create
