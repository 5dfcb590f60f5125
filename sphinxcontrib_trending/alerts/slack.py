"""The failing gate as a Slack-compatible webhook message: ``text`` plus ``blocks``.

``text`` is what notifications and clients without blocks show; the blocks
carry the outcome, the counts, then the incidents (changes many tests share,
see :mod:`~sphinxcontrib_trending.analysis.incidents`), each with its member
tests listed under it, and one section per kind of anomaly (the e-mail's
sections, so folded failures stay one line), each test linked to its graph.
Mattermost, Rocket.Chat and Teams' Slack-compatible endpoints read the same
shape.

Slack's mrkdwn treats ``&``, ``<`` and ``>`` as markup (``<url|text>`` is a
link, ``<!channel>`` pings everybody), so data strings are escaped before
they are put into it; Slack's size limits (3000 characters per section, 50
blocks) are kept by listing at most :data:`MAX_LINES` lines per section or
incident, and at most :data:`MAX_LINES` incidents.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from sphinxcontrib_trending.alerts.message import (
    IncidentView,
    Item,
    Section,
    incident_views,
    sections,
    subject_of,
)
from sphinxcontrib_trending.analysis.verdicts import Reason, Verdict
from sphinxcontrib_trending.reports.records import GraphLinks
from sphinxcontrib_trending.reports.text import summary_line

MAX_LINES = 10
"""Lines per section; more are counted, as a message is read at a glance."""

SECTION_LIMIT = 3000
"""Slack refuses a section whose text is longer."""

HEADER_LIMIT = 150
"""Slack refuses a header whose text is longer."""

_MRKDWN = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def escape(text: str) -> str:
    """Data as literal mrkdwn text: no link, mention or line break can come from it."""
    return "".join(_MRKDWN.get(character, character) for character in " ".join(text.split()))


def _link(text: str, link: str | None) -> str:
    name = escape(text)
    if not link:
        return name
    target = "".join(quote(char) if char in "<>| " else char for char in link)
    return f"<{target}|{name}>"


def _line(item: Item) -> str:
    build = _link(item.build, item.build_link)
    span = f", range {_link(item.change_range, item.compare_link)}" if item.change_range else ""
    return f"• {_link(item.title, item.link)} in {build}: {escape(item.details)}{span}"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _mrkdwn(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _section_block(section: Section) -> dict[str, Any]:
    lines = [f"*{escape(section.title)} ({section.count})*"]
    lines += [_line(item) for item in section.items[:MAX_LINES]]
    hidden = section.items[MAX_LINES:]
    if hidden:
        lines.append(f"… and {sum(item.count for item in hidden)} more")
    return {
        "type": "section",
        "text": {"type": "mrkdwn", "text": _cut("\n".join(lines), SECTION_LIMIT)},
    }


def _incident_block(view: IncidentView) -> dict[str, Any]:
    """One incident: its headline, then its member tests indented under it (cut like a section)."""
    lines = [f"• {escape(view.headline)}"]
    lines += [f"    ◦ {_link(test, link)}" for test, link in view.members[:MAX_LINES]]
    hidden = len(view.members) - MAX_LINES
    if hidden > 0:
        lines.append(f"    ◦ … and {hidden} more")
    return _mrkdwn(_cut("\n".join(lines), SECTION_LIMIT))


def _incident_blocks(views: Sequence[IncidentView]) -> list[dict[str, Any]]:
    """A title block and one block per incident, at most :data:`MAX_LINES` of them."""
    if not views:
        return []
    blocks = [_mrkdwn(f"*Incidents ({len(views)})*")]
    blocks += [_incident_block(view) for view in views[:MAX_LINES]]
    if len(views) > MAX_LINES:
        blocks.append(_mrkdwn(f"… and {len(views) - MAX_LINES} more incidents"))
    return blocks


def payload(
    verdicts: Sequence[Verdict], fail_on: frozenset[Reason], links: GraphLinks | None = None
) -> dict[str, Any]:
    """The JSON body to post: a one-line ``text`` and the blocks that detail it."""
    subject = subject_of(verdicts, fail_on, "Performance check")
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": _cut(subject, HEADER_LIMIT)}},
        {
            "type": "section",
            "text": {"type": "mrkdwn", "text": escape(summary_line(verdicts, fail_on))},
        },
    ]
    links = links or GraphLinks()
    blocks += _incident_blocks(incident_views(verdicts, links))
    blocks += [_section_block(section) for section in sections(verdicts, links)]
    return {"text": escape(subject), "blocks": blocks}
