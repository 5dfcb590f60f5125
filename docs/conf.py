"""Sphinx configuration of the sphinxcontrib-trending documentation site."""

project = "sphinxcontrib-trending"
author = "sphinxcontrib-trending developers"
copyright = "2026, sphinxcontrib-trending developers"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinxcontrib_trending",
]

exclude_patterns = ["_build"]
html_theme = "alabaster"
# The full window width: dashboards are wide tables.
html_theme_options = {"page_width": "95%", "body_max_width": "none"}
autodoc_typehints = "description"

# The live demo: real Robot Framework output, packed as one .tar.xz.
trending_sources = {"demo": {"paths": ["demo/archive/*.tar.xz"]}}
