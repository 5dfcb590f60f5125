"""The alert e-mail: what changed, as plain text and as HTML, in one message.

Incidents (the changes many tests share, see :mod:`~.analysis.incidents`)
come first, each with its member tests under it; the sections by verdict
follow.

Test names, messages and job names come from archives anybody may have
written, so the HTML part is rendered by Jinja2 with autoescaping on: every
data string is escaped, and links are only ever built from the configured
base URL and a sanitised anchor, or from conf.py's URL templates with each
value URL-quoted (see :mod:`~sphinxcontrib_trending.conf.links`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

import jinja2

from sphinxcontrib_trending.analysis.folding import FoldedFailure, fold_failures
from sphinxcontrib_trending.analysis.verdicts import Reason, Verdict, worst_first
from sphinxcontrib_trending.display import with_testbed
from sphinxcontrib_trending.reports.incidents import (
    gate_incidents,
    headline,
    incident_compare_url,
    member_label,
)
from sphinxcontrib_trending.reports.records import (
    GraphLinks,
    describe,
    first_line,
    format_change,
    format_value,
)
from sphinxcontrib_trending.reports.text import summary_line

SECTIONS = (
    Reason.REGRESSION,
    Reason.FAILED,
    Reason.MAYBE_REGRESSION,
    Reason.PROGRESSION,
    Reason.MAYBE_PROGRESSION,
    Reason.MISSING,
)
"""What an alert lists, most urgent first; Normal verdicts are only counted."""


@dataclass(frozen=True)
class Addresses:
    """Sender and recipients, kept apart from the content so the same alert can go anywhere."""

    sender: str
    recipients: tuple[str, ...]


@dataclass(frozen=True)
class Item:
    """One listed verdict with its display strings (raw: escaping is the template's job)."""

    test: str
    testbed: str
    build: str
    before: str
    after: str
    change: str
    details: str
    link: str | None
    count: int = 1
    """Tests the line stands for: identical failures fold into one line."""
    build_link: str | None = None
    """The judged build's page, where a template says."""
    version: str = ""
    version_link: str | None = None
    change_range: str = ""
    """``last good .. first bad`` version of a regression or progression."""
    compare_link: str | None = None

    @property
    def title(self) -> str:
        """The test named once with its testbed, for the text part's lines."""
        return with_testbed(self.test, self.testbed)

    """The commits between the range's two versions, where a template says."""


@dataclass(frozen=True)
class Section:
    title: str
    reason: str
    items: tuple[Item, ...]

    @property
    def count(self) -> int:
        return sum(item.count for item in self.items)


@dataclass(frozen=True)
class IncidentView:
    """One incident's headline and its member tests' lines, with their graph links."""

    headline: str
    kind: str
    members: tuple[tuple[str, str | None], ...]
    compare_link: str | None = None
    """The commits between the last good and the first bad version."""


_TEXT = """\
Performance analysis of {{ builds }}: {{ outcome }}
{{ summary }}
{% if incidents %}
Incidents ({{ incidents | length }})
{% for incident in incidents %}  * {{ incident.headline }}
{% if incident.compare_link %}    commits: {{ incident.compare_link }}
{% endif %}{% for test, link in incident.members %}      - {{ test }}
{% if link %}        {{ link }}
{% endif %}{% endfor %}{% endfor %}{% endif %}\
{% for section in sections %}
{{ section.title }} ({{ section.count }})
{% for item in section.items %}  - {{ item.title }} in {{ item.build }}: {{ item.details }}
{% if item.change_range %}    range: {{ item.change_range }}\
{% if item.compare_link %} {{ item.compare_link }}{% endif %}
{% endif %}{% if item.link %}    graph: {{ item.link }}
{% endif %}{% if item.build_link %}    build: {{ item.build_link }}
{% endif %}{% if item.version %}    version: {{ item.version }}\
{% if item.version_link %} {{ item.version_link }}{% endif %}
{% endif %}{% endfor %}{% endfor %}
"""

_HTML = """\
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{ subject }}</title></head>
{% macro linked(text, link) %}{% if link %}<a href="{{ link }}">{{ text }}</a>\
{% else %}{{ text }}{% endif %}{% endmacro %}
<body style="font-family: sans-serif">
<p>Performance analysis of <b>{{ builds }}</b>: <b>{{ outcome }}</b><br>{{ summary }}</p>
{% if incidents %}
<h2>Incidents ({{ incidents | length }})</h2>
<ul>
{% for incident in incidents %}<li class="trending-{{ incident.kind }}">{{ incident.headline }}\
{% if incident.compare_link %} (<a href="{{ incident.compare_link }}">commits</a>){% endif %}
<ul>
{% for test, link in incident.members %}<li>{% if link %}<a href="{{ link }}">{{ test }}</a>\
{% else %}{{ test }}{% endif %}</li>
{% endfor %}</ul></li>
{% endfor %}</ul>
{% endif %}{% for section in sections %}
<h2 class="trending-{{ section.reason | lower }}">\
{{ section.title }} ({{ section.count }})</h2>
<table border="1" cellspacing="0" cellpadding="4">
<tr><th>Test</th><th>Testbed</th><th>Build</th><th>Version</th><th>Range</th>\
<th>Trend before</th><th>Trend after</th><th>Change</th><th>Details</th></tr>
{% for item in section.items %}<tr>
<td>{{ linked(item.test, item.link) }}</td>
<td>{{ item.testbed }}</td><td>{{ linked(item.build, item.build_link) }}</td>\
<td>{{ linked(item.version, item.version_link) }}</td>\
<td>{{ linked(item.change_range, item.compare_link) }}</td><td>{{ item.before }}</td>\
<td>{{ item.after }}</td><td>{{ item.change }}</td><td>{{ item.details }}</td>
</tr>
{% endfor %}</table>
{% endfor %}
</body></html>
"""

_environment = jinja2.Environment(
    autoescape=True, keep_trailing_newline=True, undefined=jinja2.StrictUndefined
)
_text_environment = jinja2.Environment(keep_trailing_newline=True, undefined=jinja2.StrictUndefined)


def _item(verdict: Verdict, links: GraphLinks) -> Item:
    found = verdict.change_range
    return Item(
        test=verdict.history.display_name,
        testbed=verdict.history.testbed or "",
        build=verdict.job_build,
        before=format_value(verdict, verdict.previous_trend),
        after=format_value(verdict, verdict.trend),
        change=format_change(verdict),
        details=describe(verdict, with_range=False),
        link=links.url(verdict),
        build_link=links.build_url(verdict),
        version=verdict.version or "",
        version_link=links.version_url(verdict),
        change_range=found.text() if found is not None else "",
        compare_link=links.compare_url(verdict),
    )


_DIMENSION_LABELS = {"nic": "NIC", "frame_size": "frame size", "cores": "cores"}


def _folded_item(folded: FoldedFailure, links: GraphLinks) -> Item:
    """One line for failures that differ only in NIC, frame size or cores.

    The line names the values it spans, e.g. ``ethip4-ip4base-mrr (4 tests:
    frame size 64b, imix; cores 1t1c, 2t1c)``, and shows the masked message
    the tests share; a single failure keeps its own name and message.
    """
    first = folded.verdicts[0]
    if folded.count == 1:
        return _item(first, links)
    spans = "; ".join(
        f"{_DIMENSION_LABELS[dimension]} {', '.join(values)}" for dimension, values in folded.spans
    )
    builds = sorted({verdict.job_build for verdict in folded.verdicts})
    return Item(
        test=f"{folded.name} ({folded.count} tests" + (f": {spans})" if spans else ")"),
        testbed=first.history.testbed or "",
        build=builds[0] if len(builds) == 1 else f"{len(builds)} builds",
        before="",
        after="",
        change="",
        details=first_line(folded.message),
        link=links.url(first),
        count=folded.count,
    )


def _items(reason: Reason, verdicts: Sequence[Verdict], links: GraphLinks) -> tuple[Item, ...]:
    listed = [verdict for verdict in verdicts if verdict.reason is reason]
    if reason is Reason.FAILED:
        return tuple(_folded_item(folded, links) for folded in fold_failures(listed))
    return tuple(_item(verdict, links) for verdict in listed)


def sections(verdicts: Sequence[Verdict], links: GraphLinks) -> list[Section]:
    ordered = worst_first(verdicts)
    result = []
    for reason in SECTIONS:
        items = _items(reason, ordered, links)
        if items:
            title = "Failed tests" if reason is Reason.FAILED else f"{reason.value}s"
            result.append(Section(title=title, reason=reason.value, items=items))
    return result


def incident_views(verdicts: Sequence[Verdict], links: GraphLinks) -> list[IncidentView]:
    """The verdicts' incidents, the changes many tests share, to be read before the lists."""
    return [
        IncidentView(
            headline(found),
            found.kind,
            tuple(
                (member_label(member), links.series_url(member.source, member.history.ref))
                for member in found.members
            ),
            incident_compare_url(found, links),
        )
        for found in gate_incidents(verdicts)
    ]


def _one_line(text: str) -> str:
    """Header values must not carry line breaks from the data (header injection)."""
    return re.sub(r"\s+", " ", text).strip()


def _builds(verdicts: Sequence[Verdict]) -> str:
    names = sorted({verdict.job_build for verdict in verdicts})
    if not names:
        return "no build"
    if len(names) <= 3:
        return ", ".join(names)
    return f"{len(names)} builds"


def subject_of(verdicts: Sequence[Verdict], fail_on: frozenset[Reason], prefix: str) -> str:
    outcome = "FAIL" if any(v.fails(fail_on) for v in verdicts) else "PASS"
    listed = [
        f"{sum(v.reason is reason for v in verdicts)} {reason.value.lower()}"
        for reason in SECTIONS
        if any(v.reason is reason for v in verdicts)
    ]
    details = ", ".join(listed) if listed else "no change"
    return _one_line(f"{prefix} {outcome}: {details} in {_builds(verdicts)}")


def compose(
    verdicts: Sequence[Verdict],
    fail_on: frozenset[Reason],
    addresses: Addresses,
    links: GraphLinks | None = None,
    subject_prefix: str = "[trending]",
) -> EmailMessage:
    """The alert for these verdicts: a text part and an HTML alternative."""
    links = links or GraphLinks()
    subject = subject_of(verdicts, fail_on, subject_prefix)
    context = {
        "subject": subject,
        "builds": _builds(verdicts),
        "outcome": "FAIL" if any(v.fails(fail_on) for v in verdicts) else "PASS",
        "summary": summary_line(verdicts, fail_on),
        "incidents": incident_views(verdicts, links),
        "sections": sections(verdicts, links),
    }
    message = EmailMessage()
    message["Subject"] = subject
    message["From"] = addresses.sender
    if addresses.recipients:
        message["To"] = ", ".join(addresses.recipients)
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid(domain=_domain(addresses.sender))
    message.set_content(_text_environment.from_string(_TEXT).render(context))
    message.add_alternative(_environment.from_string(_HTML).render(context), subtype="html")
    return message


def _domain(address: str) -> str | None:
    """The sender's domain for Message-ID, so it does not leak the CI host's name."""
    _, _, domain = address.rpartition("@")
    domain = domain.strip(" >")
    return domain or None
