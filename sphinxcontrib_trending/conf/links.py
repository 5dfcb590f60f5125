"""URL templates that turn CI job builds and DUT versions into links.

A trending page names the build a regression started in and the DUT
version it ran; the engineer's next click is the CI job's page or the
version's change log.  ``trending_build_url`` and ``trending_version_url``
(and a source's ``build_url`` and ``version_url``) say where those are, as
templates with ``{job}``, ``{build}``, ``{version}`` and ``{testbed}``
fields.  Templates come from conf.py; the values come from the data, so
each is URL-quoted whole before it is put in (a ``/`` or ``?`` in a version
cannot change the address's path or query), and only ``http(s)`` templates
are accepted.  Templates are formatted with :meth:`str.format_map` over
those four names only: no attribute or index access, nothing evaluated.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from urllib.parse import quote

LINK_FIELDS = ("job", "build", "version", "testbed")


def check_link_template(template: str) -> str:
    """``template`` if it is an http(s) URL whose fields are all known; ValueError if not."""
    if not template.startswith(("http://", "https://")):
        raise ValueError(f"expected an http:// or https:// URL template, got {template!r}")
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as error:
        raise ValueError(f"{template!r}: {error}") from None
    for _text, name, spec, conversion in parsed:
        if name is None:
            continue
        if name not in LINK_FIELDS or spec or conversion:
            known = ", ".join(f"{{{field}}}" for field in LINK_FIELDS)
            raise ValueError(f"{template!r}: unknown field {{{name}}}; known: {known}")
    return template


@dataclass(frozen=True)
class LinkTemplates:
    """Where a build's and a version's pages are; None where nothing says."""

    build: str | None = None
    version: str | None = None

    def over(self, defaults: LinkTemplates) -> LinkTemplates:
        """These templates, each missing one taken from ``defaults`` (conf.py's)."""
        return LinkTemplates(self.build or defaults.build, self.version or defaults.version)

    def build_url(
        self, job: str, build: str, version: str | None, testbed: str | None
    ) -> str | None:
        return _filled(self.build, job, build, version, testbed)

    def version_url(
        self, job: str, build: str, version: str | None, testbed: str | None
    ) -> str | None:
        return None if version is None else _filled(self.version, job, build, version, testbed)


def _filled(
    template: str | None, job: str, build: str, version: str | None, testbed: str | None
) -> str | None:
    """The template with each field's value quoted; None when a field it names is unknown."""
    if template is None:
        return None
    values = {"job": job, "build": build, "version": version, "testbed": testbed}
    needed = {name for _t, name, _s, _c in string.Formatter().parse(template) if name}
    if any(values[name] is None for name in needed):
        return None
    return template.format_map({name: quote(values[name] or "", safe="") for name in needed})
