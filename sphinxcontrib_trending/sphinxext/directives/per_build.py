"""``trending-failed-tests`` with ``:mode: per-build``: the newest build of each job.

Kept apart from the window mode's directive module: this mode reads builds,
not a window of failures, and renders messages, folded where long.
"""

from __future__ import annotations

from collections.abc import Callable

from docutils import nodes

from sphinxcontrib_trending.ingest.dimensions import rules_for
from sphinxcontrib_trending.ingest.model import TestResult
from sphinxcontrib_trending.render.per_build import MESSAGE_COLUMN, per_build_failures
from sphinxcontrib_trending.render.visible import visible
from sphinxcontrib_trending.sphinxext.directives.common import TrendingDirective, table_node
from sphinxcontrib_trending.sphinxext.table_nodes import fold_column


def accepting(
    tag_filter: Callable[[tuple[str, ...]], bool] | None,
) -> Callable[[TestResult], bool] | None:
    """The ``:filter:`` as a test predicate, for views that read builds, not histories."""
    if tag_filter is None:
        return None
    return lambda test: tag_filter(test.tags)


def per_build_nodes(directive: TrendingDirective) -> list[nodes.Node]:
    """The newest build of each job: its outcome, then each failure with its message."""
    if "window" in directive.options:
        raise directive.unusable(":window: does not apply to :mode: per-build", "option")
    loaded = directive.loaded_source()
    tables = per_build_failures(
        loaded.dataset.builds,
        rules_for(loaded.source.spec.dimensions),
        metric=directive.metric(loaded),
        accept=accepting(directive.tag_filter()),
    )
    output: list[nodes.Node] = []
    for table in tables:
        if not table.rows:
            text = visible(f"{table.caption}.")
            output.append(nodes.paragraph(text, text, classes=["trending-no-failures"]))
            continue
        box = table_node(table, loaded.source.name, ["trending-failed-tests", "trending-per-build"])
        fold_column(box, MESSAGE_COLUMN)
        output.append(box)
    return output
