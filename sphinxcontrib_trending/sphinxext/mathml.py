"""Math as MathML, rendered at build time: methodology pages work offline.

Sphinx's default math renderer loads MathJax from a CDN, so a published
trending site shows raw TeX without network.  Docutils (already a
dependency) converts LaTeX to MathML, which every current browser draws
natively: no JavaScript, no fonts to ship, nothing fetched.

The renderer is registered as ``trending-mathml``.  Sphinx picks it by
itself when the only other renderer is its built-in MathJax; a site that
loads another renderer extension (imgmath, katex) keeps that one, and
``html_math_renderer = "mathjax"`` in conf.py brings MathJax back.
"""

from __future__ import annotations

from docutils import nodes
from docutils.utils.math import MathError
from docutils.utils.math.latex2mathml import tex2mathml
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.locale import _
from sphinx.util.math import get_node_equation_number
from sphinx.writers.html5 import HTML5Translator

from sphinxcontrib_trending.sphinxext.warnings import warn

RENDERER = "trending-mathml"
BUILT_IN = "mathjax"


def _mathml(translator: HTML5Translator, node: nodes.Element, latex: str, block: bool) -> str:
    """MathML of ``latex``, or the escaped TeX with a warning when it cannot convert."""
    try:
        return tex2mathml(latex, as_block=block)
    except MathError as error:
        warn(f"cannot render math {latex!r} as MathML: {error}", "math", location=node)
        return f'<code class="math-error">{translator.encode(latex)}</code>'


def visit_inline(translator: HTML5Translator, node: nodes.math) -> None:
    translator.body.append(translator.starttag(node, "span", "", CLASS="math notranslate"))
    translator.body.append(_mathml(translator, node, node.astext(), block=False))
    translator.body.append("</span>")
    raise nodes.SkipNode


def _block_latex(text: str) -> str:
    """One TeX formula from a math block: blank-line-separated parts are aligned rows."""
    parts = [part.strip() for part in text.split("\n\n") if part.strip()]
    if len(parts) == 1 and r"\\" not in parts[0]:
        return parts[0]
    return r"\begin{aligned}" + r"\\".join(parts) + r"\end{aligned}"


def visit_block(translator: HTML5Translator, node: nodes.math_block) -> None:
    translator.body.append(translator.starttag(node, "div", CLASS="math notranslate"))
    if node["number"]:
        number = get_node_equation_number(translator, node)
        translator.body.append(f'<span class="eqno">({number})')
        translator.add_permalink_ref(node, _("Link to this equation"))
        translator.body.append("</span>")
    latex = node.astext() if node.get("nowrap") else _block_latex(node.astext())
    translator.body.append(_mathml(translator, node, latex, block=True))
    translator.body.append("</div>\n")
    raise nodes.SkipNode


def _keep_another_renderer(app: Sphinx, config: Config) -> None:
    """A site that loaded imgmath, katex or the like meant it: select that one.

    With three renderers registered Sphinx would choose none and stop, so
    the other extension is selected explicitly, as if ours were absent.
    """
    if config.html_math_renderer is not None:
        return
    others = [
        name for name in app.registry.html_inline_math_renderers if name not in (RENDERER, BUILT_IN)
    ]
    if len(others) == 1:
        config.html_math_renderer = others[0]


def register(app: Sphinx) -> None:
    app.add_html_math_renderer(RENDERER, (visit_inline, None), (visit_block, None))
    app.connect("config-inited", _keep_another_renderer)
