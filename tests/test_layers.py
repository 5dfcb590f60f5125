"""Data flows one way: ingest -> analysis -> everything else, never back.

The ingest and analysis layers serve the CLI and the tests without Sphinx or
conf.py, so an import from a higher layer would drag those in (and has made
import cycles before).  This walks every module's imports, including ones
inside functions and ``TYPE_CHECKING`` blocks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "sphinxcontrib_trending"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE

ALLOWED = {
    "engine": {"engine"},
    "ingest": {"ingest", "engine"},
    "analysis": {"ingest", "analysis", "engine"},
    "conf": {"ingest", "analysis", "conf"},
    "settings": {"ingest", "analysis", "conf"},
}
"""What each lower layer may import from the package (by top-level name).

The configuration (``conf`` and ``settings``) sits above the analysis and
below everything that renders, reports or talks to Sphinx.
"""


def imported_modules(source: str, package: str) -> list[str]:
    """Absolute dotted names of everything ``source`` (a module of ``package``) imports."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.append(module)
            found += [f"{module}.{alias.name}" for alias in node.names if module == PACKAGE]
    return [name for name in found if name == PACKAGE or name.startswith(f"{PACKAGE}.")]


def layer_of(module: str) -> str:
    """The package's top-level part a dotted name belongs to ("" for the package)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def upward_imports(layer: str) -> list[str]:
    found = []
    folder = ROOT / layer
    for path in sorted(folder.rglob("*.py")) if folder.is_dir() else [ROOT / f"{layer}.py"]:
        package = ".".join(path.relative_to(ROOT.parent).parts[:-1])
        for module in imported_modules(path.read_text(), package):
            if layer_of(module) not in ALLOWED[layer]:
                found.append(f"{path.relative_to(ROOT.parent)} imports {module}")
    return found


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_lower_layers_never_import_a_higher_one(layer: str) -> None:
    assert upward_imports(layer) == []


def test_the_walk_sees_relative_absolute_and_nested_imports() -> None:
    """The check itself must catch what it is there to catch."""
    source = """
from typing import TYPE_CHECKING
from . import windows
from ..settings import Settings
from sphinxcontrib_trending import cli
if TYPE_CHECKING:
    import sphinxcontrib_trending.render.table
def late():
    from sphinxcontrib_trending.sphinxext.config import settings_of
"""
    found = imported_modules(source, "sphinxcontrib_trending.analysis")
    assert [layer_of(name) for name in found if layer_of(name) not in ALLOWED["analysis"]] == [
        "settings",
        "",
        "cli",
        "render",
        "sphinxext",
    ]
