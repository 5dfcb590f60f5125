"""URL templates that turn CI job builds, DUT versions and change ranges into links.

A trending page names the build a regression started in and the DUT
version it ran; the engineer's next click is the CI job's page or the
version's change log.  ``trending_build_url`` and ``trending_version_url``
(and a source's ``build_url`` and ``version_url``) say where those are, as
templates with ``{job}``, ``{build}``, ``{version}`` and ``{testbed}``
fields; ``trending_compare_url`` (a source's ``compare_url``) says where the
commits between two versions are listed, with ``{last_good}`` and
``{first_bad}`` (the versions a change lies between, see
:mod:`~sphinxcontrib_trending.analysis.change_range`), ``{job}`` and
``{testbed}``.  Templates come from conf.py; the values come from the data, so
each is URL-quoted whole before it is put in (a ``/`` or ``?`` in a version
cannot change the address's path or query), and only ``http(s)`` templates
are accepted.  Templates are split into text and bare field names and the
quoted values put in their place, without :meth:`str.format`: no attribute
or index access, nothing evaluated.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from urllib.parse import quote

LINK_FIELDS = ("job", "build", "version", "testbed")
COMPARE_FIELDS = ("last_good", "first_bad", "job", "testbed")


def check_link_template(template: str, fields: tuple[str, ...] = LINK_FIELDS) -> str:
    """``template`` if it is an http(s) URL whose fields are all in ``fields``; ValueError if not.

    A field is a bare name: ``{version.__class__}`` or ``{job[0]}`` would reach
    into Python objects if the template were formatted naively, so they are
    refused with their own message, as are conversions and format specs."""
    if not template.startswith(("http://", "https://")):
        raise ValueError(f"expected an http:// or https:// URL template, got {template!r}")
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as error:
        raise ValueError(f"{template!r}: {error}") from None
    for _text, name, spec, conversion in parsed:
        if name is None:
            continue
        known = ", ".join(f"{{{field}}}" for field in fields)
        if any(mark in name for mark in ".["):
            raise ValueError(
                f"{template!r}: field {{{name}}} reaches into a value; "
                f"fields are plain names: {known}"
            )
        if name not in fields or spec or conversion:
            raise ValueError(f"{template!r}: unknown field {{{name}}}; known: {known}")
    return template


@dataclass(frozen=True)
class LinkTemplates:
    """Where a build's and a version's pages are, and the commits between two
    versions; None where nothing says."""

    build: str | None = None
    version: str | None = None
    compare: str | None = None

    def over(self, defaults: LinkTemplates) -> LinkTemplates:
        """These templates, each missing one taken from ``defaults`` (conf.py's)."""
        return LinkTemplates(
            self.build or defaults.build,
            self.version or defaults.version,
            self.compare or defaults.compare,
        )

    def build_url(
        self, job: str, build: str, version: str | None, testbed: str | None
    ) -> str | None:
        return _filled(self.build, job, build, version, testbed)

    def version_url(
        self, job: str, build: str, version: str | None, testbed: str | None
    ) -> str | None:
        return None if version is None else _filled(self.version, job, build, version, testbed)

    def compare_url(
        self, last_good: str | None, first_bad: str | None, job: str, testbed: str | None
    ) -> str | None:
        """The commits between two versions; None unless both are known and differ
        (one version on both sides has nothing between: the cause is elsewhere)."""
        if last_good is None or first_bad is None or last_good == first_bad:
            return None
        values = {"last_good": last_good, "first_bad": first_bad, "job": job, "testbed": testbed}
        return _substituted(self.compare, values)


def _filled(
    template: str | None, job: str, build: str, version: str | None, testbed: str | None
) -> str | None:
    values = {"job": job, "build": build, "version": version, "testbed": testbed}
    return _substituted(template, values)


def _substituted(template: str | None, values: dict[str, str | None]) -> str | None:
    """The template with each field's value quoted; None when a field it names is unknown.

    The template is only split into text and field names, never given to
    :meth:`str.format`: a name is looked up as a whole key, so nothing in a
    template can reach an attribute, an index or a conversion.
    """
    if template is None:
        return None
    parts = []
    for text, name, _spec, _conversion in string.Formatter().parse(template):
        parts.append(text)
        if name is None:
            continue
        value = values.get(name)
        if value is None:
            return None
        parts.append(quote(value, safe=""))
    return "".join(parts)
