"""pdfLaTeX learns the characters that stand for control characters in data.

render/visible.py shows an ESC as U+241B and so on; pdfLaTeX knows none of
those symbols and stops the PDF with "Unicode character not set up".  Each
becomes its name in a small box (ESC, NUL, BEL, ...), so ``make latexpdf``
shows what the data held, as HTML does.  XeLaTeX and LuaLaTeX read Unicode
themselves and are left alone.
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.config import Config

C0_NAMES = [
    "NUL",
    "SOH",
    "STX",
    "ETX",
    "EOT",
    "ENQ",
    "ACK",
    "BEL",
    "BS",
    "HT",
    "LF",
    "VT",
    "FF",
    "CR",
    "SO",
    "SI",
    "DLE",
    "DC1",
    "DC2",
    "DC3",
    "DC4",
    "NAK",
    "SYN",
    "ETB",
    "CAN",
    "EM",
    "SUB",
    "ESC",
    "FS",
    "GS",
    "RS",
    "US",
]
SYMBOLS = {
    **{0x2400 + code: name for code, name in enumerate(C0_NAMES)},
    0x2421: "DEL",
    0xFFFD: "?",
}


def control_pictures_preamble() -> str:
    declarations = "".join(
        f"\\DeclareUnicodeCharacter{{{code:04X}}}{{\\fbox{{\\tiny {name}}}}}\n"
        for code, name in SYMBOLS.items()
    )
    return (
        "% sphinxcontrib-trending: control characters in data (render/visible.py)\n"
        f"\\ifdefined\\XeTeXversion\\else\\ifdefined\\directlua\\else\n{declarations}\\fi\\fi\n"
    )


def _add_preamble(app: Sphinx, config: Config) -> None:
    elements = dict(config.latex_elements)
    elements["preamble"] = elements.get("preamble", "") + control_pictures_preamble()
    config.latex_elements = elements


def register(app: Sphinx) -> None:
    app.connect("config-inited", _add_preamble)
