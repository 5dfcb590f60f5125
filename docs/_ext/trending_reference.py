"""The configuration reference, generated from the declarations in the package.

``trending-options`` renders the table of every ``trending_*`` option,
``trending-option NAME`` one option's entry (type and default from its
declaration, the prose from the page) and ``trending-warning-subtypes`` the
warning subtypes with their descriptions.  A declared option without an
entry warns, so the ``-W`` docs build fails until it is documented.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from sphinxcontrib_trending.settings import OPTIONS
from sphinxcontrib_trending.sphinxext.warnings import SUBTYPES

logger = logging.getLogger(__name__)

CHANGING = {"env": "re-reads the pages", "html": "re-writes the pages", "": "changes no page"}
"""What changing an option does to an incremental build, by its rebuild kind."""


def _literal(value: Any) -> str:
    return f'``"{value}"``' if isinstance(value, str) else f"``{value!r}``"


class _Generated(SphinxDirective):
    def parse_lines(self, lines: list[str]) -> list[nodes.Node]:
        container = nodes.container()
        self.state.nested_parse(StringList(lines, self.get_source_info()[0]), 0, container)
        return container.children


class OptionsTable(_Generated):
    def run(self) -> list[nodes.Node]:
        lines = [".. list-table::", "   :header-rows: 1", "   :widths: auto", ""]
        lines += [
            f"   {'*' if i == 0 else ' '} - {head}"
            for i, head in enumerate(("Option", "Type", "Default", "Changing it", "What it sets"))
        ]
        for name, option in OPTIONS.items():
            cells = (
                f":confval:`{name}`",
                f"``{option.doc_type}``",
                _literal(option.default),
                CHANGING[option.rebuild],
                option.help,
            )
            lines += [f"   {'*' if i == 0 else ' '} - {cell}" for i, cell in enumerate(cells)]
        return self.parse_lines(lines)


class OptionEntry(_Generated):
    required_arguments = 1
    has_content = True

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        option = OPTIONS.get(name)
        if option is None:
            logger.warning("undeclared option %r", name, location=self.get_location())
            return []
        _documented(self.env).setdefault(self.env.docname, set()).add(name)
        lines = [
            f".. confval:: {name}",
            f"   :type: ``{option.doc_type}``",
            f"   :default: {_literal(option.default)}",
            "",
            *(f"   {line}" for line in self.content),
        ]
        return self.parse_lines(lines)


class WarningSubtypes(_Generated):
    def run(self) -> list[nodes.Node]:
        lines = []
        for subtype, description in SUBTYPES.items():
            lines += [f"``{subtype}``", f"   {description}"]
        return self.parse_lines(lines)


def _documented(env: BuildEnvironment) -> dict[str, set[str]]:
    """Which options each page documents, kept in the environment."""
    if not hasattr(env, "trending_documented_options"):
        env.trending_documented_options = {}  # type: ignore[attr-defined]
    return env.trending_documented_options  # type: ignore[attr-defined]


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _documented(env).pop(docname, None)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: Any) -> None:
    _documented(env).update(
        (docname, names) for docname, names in _documented(other).items() if docname in docnames
    )


def _check_every_option_documented(app: Sphinx, env: BuildEnvironment) -> None:
    documented = set().union(*_documented(env).values())
    for name in OPTIONS:
        if name not in documented:
            logger.warning("option %s has no trending-option entry in the docs", name)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("trending-options", OptionsTable)
    app.add_directive("trending-option", OptionEntry)
    app.add_directive("trending-warning-subtypes", WarningSubtypes)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _check_every_option_documented)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
