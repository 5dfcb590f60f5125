"""Long failure messages folded in table cells: the first line shown, the rest on a click.

In HTML a long message becomes a ``<details>`` element whose summary is its
first line, cut short (see :func:`.table_nodes.visit_table_html`); every
other builder (LaTeX, text, ...) shows the whole message.
"""

from __future__ import annotations

FOLD_LENGTH = 120
"""Messages longer than this, or of more than one line, are folded."""


def needs_folding(text: str) -> bool:
    return len(text) > FOLD_LENGTH or "\n" in text.strip()


def summary_of(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= FOLD_LENGTH else line[: FOLD_LENGTH - 1] + "…"
