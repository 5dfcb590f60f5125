"""Which pages a change of a source's data makes Sphinx read again.

Every page that used a source whose data changed used to be read again.
At CSIT's size a site has a page of graphs per testbed and area, and each
testbed's job adds its build on its own: the pages that graph only other
testbeds' series would come out of a new read byte for byte as they are.
A page is left as it is when all of these hold:

* every trending directive on it that uses the source is a graph of the
  series it picks (a dashboard, a table or a news feed shows something of
  every series, or of the newest build, and is always read again);
* the source tells which builds are new since the page was read
  (:mod:`~sphinxcontrib_trending.analysis.touched_series`): nothing read
  then is gone or changed now;
* none of the series the page graphs is among the new builds' tests;
* no series of the new builds would now be picked by one of its graphs
  (a new test, or one whose tags or dimensions changed).

A graph depends on its series' runs and the settings alone (not on the
newest build of the whole source, which windows and dashboards do), so
such a page reads as it did.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sphinx.environment import BuildEnvironment

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.tagfilter import FilterError, compile_filter
from sphinxcontrib_trending.analysis.touched_series import Touched, touched_series
from sphinxcontrib_trending.ingest.dimensions import rules_for
from sphinxcontrib_trending.sphinxext.config import settings_of
from sphinxcontrib_trending.sphinxext.env_records import GraphSelection, env_data
from sphinxcontrib_trending.sphinxext.process_memo import load_source, select


def pages_to_read(env: BuildEnvironment, changed: set[str]) -> list[str]:
    """The pages that used a source in ``changed`` and may show something else now."""
    data = env_data(env)
    touched: dict[str, Touched | None] = {}

    def touched_of(name: str) -> Touched | None:
        """What is new in the source, once per build; the records then name the data
        every page shows, whether it is read again or not."""
        if name not in touched:
            if name not in settings_of(env.config).sources:  # a source no longer configured
                touched[name] = None
                return None
            loaded = load_source(env, name)
            touched[name] = touched_series(
                loaded.dataset.builds, data.provenance.get(name), loaded.provenance
            )
            data.provenance[name] = loaded.provenance
            data.fingerprints[name] = loaded.fingerprint
        return touched[name]

    return sorted(
        docname
        for docname, sources in data.doc_sources.items()
        if any(_may_change(env, docname, name, touched_of) for name in sources & changed)
    )


def _may_change(
    env: BuildEnvironment,
    docname: str,
    name: str,
    touched_of: Callable[[str], Touched | None],
) -> bool:
    data = env_data(env)
    selections = data.selections.get(docname, {}).get(name)
    if name in data.whole_uses.get(docname, ()) or not selections:
        return True
    touched = touched_of(name)
    if touched is None:
        return True
    graphed = {
        target.series.key for target in data.claimed.get(docname, ()) if target.source == name
    }
    if not graphed.isdisjoint(touched.keys):
        return True
    return any(_picks_new(env, name, selection, touched) for selection in selections)


def _picks_new(
    env: BuildEnvironment, name: str, selection: GraphSelection, touched: Touched
) -> bool:
    """Whether the graph would pick a series of the new builds (it graphs none of them now).

    Such a series' newest run is in the new builds, or it would not be new
    to the page: its name, tags and dimensions are those of the new builds.
    """
    if not touched.builds:
        return False
    try:
        tests = re.compile(selection.tests) if selection.tests is not None else None
        tag_filter = compile_filter(selection.filter) if selection.filter else None
    except (re.error, FilterError):
        return True  # the page says why; it is read again, as the graph may work now
    loaded = load_source(env, name)
    rules = rules_for(loaded.source.spec.dimensions)
    candidates = select(histories(touched.builds, selection.metric, rules=rules), tag_filter)
    return any(tests is None or tests.search(history.test_id) for history in candidates)
