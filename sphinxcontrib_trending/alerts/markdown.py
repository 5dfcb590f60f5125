"""The gate's verdict as compact Markdown, for pull-request comments and job summaries.

A reviewer reads it between code comments: the outcome and counts first,
then the incidents (changes many tests share, see
:mod:`~sphinxcontrib_trending.analysis.incidents`) with their tests listed
under them, then one short table per kind of anomaly (the same sections as the alert
e-mail, so folded failures stay one row), each test linked to its graph.
Long sections are cut, as a comment has a size limit and the JSON holds
everything.

Test names and messages come from archives anybody may have written; GitHub
renders Markdown *and* inline HTML, so every data string is escaped for both
before it reaches a table cell, and links are only built by
:class:`~sphinxcontrib_trending.reports.records.GraphLinks`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from urllib.parse import quote

from sphinxcontrib_trending.alerts.message import (
    IncidentView,
    Item,
    Section,
    incident_views,
    sections,
)
from sphinxcontrib_trending.analysis.verdicts import Reason, Verdict
from sphinxcontrib_trending.reports.records import GraphLinks
from sphinxcontrib_trending.reports.text import summary_line

MAX_ROWS = 20
"""Rows per section; the rest are counted, so a comment never hits GitHub's size limit."""

MAX_BUILDS = 5
"""Builds named in the heading's line; one per CI job is the usual count."""

_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MARKUP = re.compile(r"([\\`*_\[\]()|~!#{}])")
_URL_UNSAFE = "()<> \"'`|"


def escape(text: str) -> str:
    """One line of data as literal text in a Markdown table cell.

    HTML's three characters become entities, Markdown's markup characters
    and the cell separator are backslash-escaped, and line breaks (which
    would end the table row) become spaces.
    """
    text = " ".join(text.split())
    text = "".join(_HTML.get(character, character) for character in text)
    return _MARKUP.sub(r"\\\1", text)


def _url(link: str) -> str:
    """A link target that cannot end the Markdown link early: unsafe characters percent-encoded."""
    return "".join(quote(char) if char in _URL_UNSAFE else char for char in link)


def _linked(text: str, link: str | None) -> str:
    """A cell's text, a link where a URL was made for it (the graph's, a build's, ...)."""
    shown = escape(text)
    return f"[{shown}]({_url(link)})" if link and shown else shown


_COLUMNS: tuple[tuple[str, Callable[[Item], str]], ...] = (
    ("Test", lambda item: _linked(item.test, item.link)),
    ("Testbed", lambda item: escape(item.testbed)),
    ("Build", lambda item: _linked(item.build, item.build_link)),
    ("Version", lambda item: _linked(item.version, item.version_link)),
    ("Range", lambda item: _linked(item.change_range, item.compare_link)),
    ("Change", lambda item: escape(item.change)),
    ("Details", lambda item: escape(item.details)),
)
_OPTIONAL = frozenset({"Version", "Range"})
"""Columns left out of a section none of whose rows has a value for them."""


def _table(section: Section) -> list[str]:
    shown = section.items[:MAX_ROWS]
    rows = [[cell(item) for _title, cell in _COLUMNS] for item in shown]
    kept = [
        index
        for index, (title, _cell) in enumerate(_COLUMNS)
        if title not in _OPTIONAL or any(row[index] for row in rows)
    ]
    lines = [
        f"**{escape(section.title)} ({section.count})**",
        "",
        "| " + " | ".join(_COLUMNS[index][0] for index in kept) + " |",
        "| " + " | ".join("---" for _index in kept) + " |",
    ]
    lines += ["| " + " | ".join(row[index] for index in kept) + " |" for row in rows]
    hidden = section.items[MAX_ROWS:]
    if hidden:
        lines += ["", f"… and {sum(item.count for item in hidden)} more (see the JSON report)."]
    return [*lines, ""]


def _incidents(views: Sequence[IncidentView]) -> list[str]:
    """Each incident's headline, its tests a nested list under it (cut like a section)."""
    if not views:
        return []
    lines = [f"**Incidents ({len(views)})**", ""]
    for view in views:
        lines.append(f"- {escape(view.headline)}")
        for test, link in view.members[:MAX_ROWS]:
            name = escape(test)
            lines.append(f"  - [{name}]({_url(link)})" if link else f"  - {name}")
        hidden = len(view.members) - MAX_ROWS
        if hidden > 0:
            lines.append(f"  - … and {hidden} more (see the JSON report)")
    return [*lines, ""]


def _folded_note(listed: Sequence[Section]) -> list[str]:
    """Which failures share one row: the reader must know a row can stand for many tests."""
    folded = [item for section in listed for item in section.items if item.count > 1]
    if not folded:
        return []
    tests = sum(item.count for item in folded)
    rows = "row" if len(folded) == 1 else "rows"
    return [
        f"Folded: {tests} failed tests with the same message, differing only in NIC, frame "
        f"size or cores, are shown as {len(folded)} {rows}.",
        "",
    ]


def summary(
    verdicts: Sequence[Verdict], fail_on: frozenset[Reason], links: GraphLinks | None = None
) -> str:
    """The whole Markdown document: heading with the outcome, counts, incidents,
    sections, folding."""
    outcome = "FAIL" if any(verdict.fails(fail_on) for verdict in verdicts) else "PASS"
    builds = sorted({verdict.job_build for verdict in verdicts})
    listed = sections(verdicts, links or GraphLinks())
    lines = [
        f"### Performance check: {outcome}",
        "",
        escape(summary_line(verdicts, fail_on)),
        "",
    ]
    if builds:
        named = ", ".join(f"`{_code(build)}`" for build in builds[:MAX_BUILDS])
        more = f" and {len(builds) - MAX_BUILDS} more" if len(builds) > MAX_BUILDS else ""
        lines += [f"Judged: {named}{more}", ""]
    lines += _incidents(incident_views(verdicts, links or GraphLinks()))
    for section in listed:
        lines += _table(section)
    lines += _folded_note(listed)
    return "\n".join(lines).rstrip("\n") + "\n"


def _code(text: str) -> str:
    """Text inside a code span: a backtick would close it, a line break would split it."""
    return " ".join(text.replace("`", "'").split())
