"""Performance trending for Sphinx documentation.

Importing the package must stay cheap and Sphinx-free: the analysis core and
the ingest layer serve the command line too, so Sphinx is imported only when
Sphinx itself calls :func:`setup`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx

__version__ = "0.1.0"


def setup(app: Sphinx) -> dict[str, Any]:
    """Sphinx entry point, used via ``extensions = ["sphinxcontrib_trending"]``."""
    from sphinxcontrib_trending.sphinxext import setup_extension

    return setup_extension(app)
