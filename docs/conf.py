"""Sphinx configuration of the sphinxcontrib-trending documentation site."""

import sys
from pathlib import Path

# trending_reference: the configuration reference, generated from the package.
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "sphinxcontrib-trending"
author = "sphinxcontrib-trending developers"
copyright = "2026, sphinxcontrib-trending developers"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinxcontrib_trending",
    "trending_reference",
]

exclude_patterns = ["_build"]
html_theme = "alabaster"
# The full window width: dashboards are wide tables.
html_theme_options = {"page_width": "95%", "body_max_width": "none"}
autodoc_typehints = "description"

# The live demo: real Robot Framework output, packed as one .tar.xz.
trending_sources = {
    "demo": {"paths": ["demo/archive/*.tar.xz"]},
    # NDR/PDR and latency: CSIT JSON test model documents (tools/make_demo_json.py).
    "ndrpdr": {
        "paths": ["demo/json/*.tar.xz"],
        "format": "csit-json",
        "metric": "ndr",
        "testbed": r"\dn-[a-z0-9]+$",
    },
    # Changes many tests share, for the incidents page (tools/make_demo_incidents.py).
    "incidents": {"paths": ["demo/incidents/*.jsonl.gz"], "format": "jsonl"},
    # Release data: the reference's iterative and coverage Parquet (tools/make_demo_releases.py).
    "releases": {
        "paths": [
            "demo/releases/iterative_rls2502",
            "demo/releases/iterative_rls2506",
            "demo/releases/iterative_rls2510",
        ],
        "format": "parquet",
    },
    "coverage": {"paths": ["demo/releases/coverage_rls2510"], "format": "parquet"},
}

# make latexpdf: the methodology pages use Unicode symbols (such as U+220E) that
# pdfLaTeX does not know; XeLaTeX reads them (Debian: texlive-xetex, fonts-freefont-otf).
latex_engine = "xelatex"
