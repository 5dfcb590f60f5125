"""Imports go down a declared order of layers, and no modules import each other in a circle.

The ingest and analysis layers serve the CLI and the tests without Sphinx or
conf.py, the reports serve ``sphinx-trending check`` without the site's
rendering, so an import from a higher layer would drag those in.  A cycle
between two modules, even inside one layer, makes the import of either load
both (and everything they import): importing a ``SourceSpec`` once loaded
every input format, pyarrow and fsspec that way.

The walk sees every import: inside functions and ``TYPE_CHECKING`` blocks
too (an import only a type checker runs is still a dependency of the
design), and a module of the package named in a string, as the format
registry and the command line's dispatch import theirs.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from pathlib import Path

import pytest

PACKAGE = "sphinxcontrib_trending"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE

LAYERS = (
    "version",
    "schemas",
    "engine",
    "ingest",
    "analysis",
    "conf",
    "settings",
    "judging",
    "display",
    "reports",
    "alerts",
    "render",
    "sphinxext",
    "cli",
    "__main__",
    "",
)
"""Every top-level package and module of the package, lowest first.

Each may import itself and the layers before it, never one after it.  The
configuration (``conf`` and ``settings``) sits above the analysis and below
everything that judges, reports, renders or talks to Sphinx; the reports'
records are shared by the command line and the site's tables, so ``render``
sits above ``reports``; ``display`` says how numbers read in both.  The
package itself ("") is Sphinx's entry point and imports the extension.
"""

MODULE_NAME = re.compile(rf"{PACKAGE}(\.\w+)+")
"""A module named in a string: a submodule's dotted name, nothing else."""


def package_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def imported_modules(source: str, module: str, is_package: bool) -> list[str]:
    """Dotted names of everything ``source`` (the text of ``module``) imports from the package.

    ``from x import y`` yields ``x.y``: a submodule when there is one,
    otherwise a name defined in ``x``, which :func:`owner` maps back to ``x``.
    """
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            found += [f"{origin}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Constant) and MODULE_NAME.fullmatch(str(node.value)):
            found.append(node.value)
    return [name for name in found if name == PACKAGE or name.startswith(f"{PACKAGE}.")]


def owner(name: str, modules: Mapping[str, Path]) -> str:
    """The module a dotted name is, or is defined in."""
    while name not in modules:
        name = name.rpartition(".")[0]
    return name


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """Which modules of the package each module imports (itself left out)."""
    graph = {}
    for module, path in modules.items():
        names = imported_modules(path.read_text(), module, path.name == "__init__.py")
        graph[module] = {owner(name, modules) for name in names} - {module}
    return graph


def layer_of(module: str) -> str:
    """The package's top-level part a dotted name belongs to ("" for the package)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def upward_imports(graph: Mapping[str, set[str]]) -> list[str]:
    rank = {layer: position for position, layer in enumerate(LAYERS)}
    return [
        f"{module} imports {imported}"
        for module, imports in sorted(graph.items())
        for imported in sorted(imports)
        if rank[layer_of(imported)] > rank[layer_of(module)]
    ]


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others.

    Tarjan's strongly connected components, iteratively: a component of more
    than one module is a cycle.
    """
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []
    for start in sorted(graph):
        if start in order:
            continue
        work = [(start, iter(sorted(graph[start])))]
        order[start] = low[start] = len(order)
        stack.append(start)
        while work:
            module, pending = work[-1]
            imported = next(pending, None)
            if imported is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[module])
                if low[module] == order[module]:
                    component = stack[stack.index(module) :]
                    del stack[stack.index(module) :]
                    if len(component) > 1:
                        found.append(sorted(component))
            elif imported not in order:
                order[imported] = low[imported] = len(order)
                stack.append(imported)
                work.append((imported, iter(sorted(graph.get(imported, ())))))
            elif imported in stack:
                low[module] = min(low[module], order[imported])
    return sorted(found)


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(package_modules())


def test_every_part_of_the_package_has_a_layer(graph: dict[str, set[str]]) -> None:
    assert sorted({layer_of(module) for module in graph}) == sorted(LAYERS)


def test_no_layer_imports_a_higher_one(graph: dict[str, set[str]]) -> None:
    assert upward_imports(graph) == []


def test_no_modules_import_each_other(graph: dict[str, set[str]]) -> None:
    assert cycles(graph) == []


def test_the_walk_sees_relative_absolute_nested_and_named_imports() -> None:
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
    return importlib.import_module("sphinxcontrib_trending.alerts.smtp"), "sphinxcontrib_trending"
"""
    found = imported_modules(source, "sphinxcontrib_trending.analysis.history", False)
    assert sorted(found) == [
        "sphinxcontrib_trending.alerts.smtp",
        "sphinxcontrib_trending.analysis.windows",
        "sphinxcontrib_trending.cli",
        "sphinxcontrib_trending.render.table",
        "sphinxcontrib_trending.settings.Settings",
        "sphinxcontrib_trending.sphinxext.config.settings_of",
    ]
    modules = package_modules()
    assert owner(f"{PACKAGE}.settings.Settings", modules) == f"{PACKAGE}.settings"
    assert owner(f"{PACKAGE}.analysis.windows", modules) == f"{PACKAGE}.analysis.windows"
    assert owner(f"{PACKAGE}.__version__", modules) == PACKAGE


def test_a_cycle_is_found_however_long_and_only_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d", "f"}, "f": {"e"}}
    assert cycles(graph) == [["a", "b", "c"], ["e", "f"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
