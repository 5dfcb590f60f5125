"""``make latexpdf`` of a trending site: pdfLaTeX turns it into a PDF with every graph.

The LaTeX builder's output (a PDF image per graph) is tested in test_site.py;
this runs the toolchain on it, as a user's ``make latexpdf`` does: the
Makefile Sphinx writes, latexmk and pdfLaTeX.  The data carries an ESC, which
pdfLaTeX refuses unless the extension declares it (sphinxext/latex.py).

latexmk is found on PATH.  Without it this test skips with the reason named,
unless TRENDING_REQUIRE_LATEX=1 (CI sets it, after installing TeX Live from the
distribution), which makes it fail instead.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.sphinxext import datasets
from tests.sphinxext.conftest import SiteFactory

REQUIRE = "TRENDING_REQUIRE_LATEX"


def _require(*tools: str) -> None:
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        message = f"no {', '.join(missing)} on PATH (TeX Live's latexmk and pdflatex)"
        if os.environ.get(REQUIRE) == "1":
            pytest.fail(f"{message}, and {REQUIRE}=1")
        pytest.skip(message)


def test_latexpdf_makes_a_pdf_with_every_graph(site: SiteFactory) -> None:
    _require("latexmk", "pdflatex", "make")
    app = site(builder="latex")
    app.build()
    out = Path(app.outdir)
    completed = subprocess.run(
        ["make", "-C", str(out), "all-pdf", "LATEXMKOPTS=-interaction=nonstopmode -halt-on-error"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-2000:]
    (pdf,) = out.glob("*.pdf")
    assert pdf.read_bytes().startswith(b"%PDF-")
    log = pdf.with_suffix(".log").read_text(errors="replace")
    # pdfTeX names every file it embeds, as <path>, in its log
    embedded = set(re.findall(r"<(trending/graph-[0-9a-f]+\.pdf)", log))
    assert len(embedded) == len(datasets.TESTS)
    assert "Unicode character" not in log
