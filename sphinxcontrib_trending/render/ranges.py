"""A change's range as a table cell: ``last good .. first bad``, linked to the commits between."""

from __future__ import annotations

from sphinxcontrib_trending.analysis.change_range import ChangeRange
from sphinxcontrib_trending.conf.links import LinkTemplates

RANGE_COLUMN = "Range [last good .. first bad]"


def range_cell(found: ChangeRange | None, links: LinkTemplates) -> tuple[str, str | None]:
    """The range's text and its compare page, where the templates say; ("", None) without one."""
    if found is None:
        return "", None
    before, after = found.versions
    first = found.first_bad
    return found.text(), links.compare_url(before, after, first.job, first.testbed)
