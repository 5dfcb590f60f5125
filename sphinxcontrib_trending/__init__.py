"""Performance trending for Sphinx documentation.

Importing the package must stay cheap and Sphinx-free: the analysis core and
the ingest layer serve the command line too, so Sphinx is imported only when
Sphinx itself calls :func:`setup`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sphinxcontrib_trending.version import __version__

if TYPE_CHECKING:
    from sphinx.application import Sphinx

__all__ = ["__version__", "setup"]


def setup(app: Sphinx) -> dict[str, Any]:
    """Sphinx entry point, used via ``extensions = ["sphinxcontrib_trending"]``."""
    from sphinxcontrib_trending.sphinxext import setup_extension

    return setup_extension(app)
