"""The Sphinx side: configuration, directives, nodes and environment data."""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx

from sphinxcontrib_trending import __version__


def setup_extension(app: Sphinx) -> dict[str, Any]:
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
