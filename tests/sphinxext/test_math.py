"""Math renders to MathML at build time, so pages need no network."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import lxml.html
from sphinx.testing.util import SphinxTestApp

PAGE = r"""Math
====

Inline :math:`\rho > 0` and :math:`\log_2 \mathrm{norm}(p)`.

.. math::
   :label: bits

   \bigl[\ln 2 + \tfrac{n-1}{2}\ln\pi - \ln\Gamma(\tfrac{n-1}{2})\bigr]

.. math::

   a = b

   c = d \\ e = f

Broken :math:`\unknowncmd x`.
"""


def _site(tmp_path: Path, conf: str) -> Path:
    srcdir = tmp_path / "src"
    srcdir.mkdir()
    (srcdir / "conf.py").write_text(conf)
    (srcdir / "index.rst").write_text(PAGE)
    return srcdir


def test_math_is_mathml_with_no_network_url(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp]
) -> None:
    srcdir = _site(tmp_path, 'extensions = ["sphinxcontrib_trending"]\n')
    app = make_app("html", srcdir=srcdir)
    app.build()
    raw = (Path(app.outdir) / "index.html").read_text()
    page = lxml.html.fromstring(raw)
    assert len(page.xpath("//span[contains(@class, 'math')]/math")) == 2
    blocks = page.xpath("//div[contains(@class, 'math')]/math[@display='block']")
    assert len(blocks) == 2
    assert page.xpath("//div[contains(@class, 'math')]//span[@class='eqno']")
    assert "mtable" in lxml.html.tostring(blocks[1]).decode()  # two aligned rows
    # nothing fetched: no script or stylesheet from another host, no MathJax at all
    urls = page.xpath("//script/@src | //link/@href")
    assert not [url for url in urls if re.match(r"(https?:)?//", url)]
    assert "mathjax" not in raw.lower()
    assert "cannot render math" in app.warning.getvalue()
    assert "[trending.math]" in app.warning.getvalue()
    assert page.xpath("//code[@class='math-error']")[0].text == r"\unknowncmd x"


def test_another_math_extension_is_kept(
    tmp_path: Path, make_app: Callable[..., SphinxTestApp]
) -> None:
    srcdir = _site(tmp_path, 'extensions = ["sphinxcontrib_trending", "sphinx.ext.imgmath"]\n')
    (srcdir / "index.rst").write_text("Plain\n=====\n")
    app = make_app("html", srcdir=srcdir)
    assert app.builder.math_renderer_name == "imgmath"


def test_mathjax_can_be_chosen_back(tmp_path: Path, make_app: Callable[..., SphinxTestApp]) -> None:
    srcdir = _site(
        tmp_path, 'extensions = ["sphinxcontrib_trending"]\nhtml_math_renderer = "mathjax"\n'
    )
    app = make_app("html", srcdir=srcdir)
    app.build()
    assert "mathjax" in (Path(app.outdir) / "index.html").read_text()
