"""Every sphinx-build and every CLI call imports the extension: keep its start light.

scipy.stats (half a second), matplotlib and Dask's distributed serve a few
directives and options only; they are imported where used.  A module-level
import of one of them anywhere on the extension's import path would add its
cost to every build, a build with nothing to do included.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("scipy", "matplotlib", "distributed")


@pytest.mark.parametrize(
    "module", ["sphinxcontrib_trending.sphinxext", "sphinxcontrib_trending.cli"]
)
def test_starting_imports_no_heavy_library(module: str) -> None:
    probe = (
        f"import sys, {module}\nprint(' '.join(name for name in {HEAVY!r} if name in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert loaded == []
