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

from sphinx.environment import BuildEnvironment

from sphinxcontrib_trending.analysis.history import TestHistory, histories
from sphinxcontrib_trending.analysis.tagfilter import FilterError, compile_filter
from sphinxcontrib_trending.analysis.touched_series import Touched, touched_series
from sphinxcontrib_trending.ingest.dimensions import rules_for
from sphinxcontrib_trending.sphinxext.config import settings_of
from sphinxcontrib_trending.sphinxext.env_records import GraphSelection, env_data
from sphinxcontrib_trending.sphinxext.process_memo import load_source, select


def pages_to_read(env: BuildEnvironment, changed: set[str]) -> list[str]:
    """The pages that used a source in ``changed`` and may show something else now."""
    data = env_data(env)
    new = _NewData(env)
    return sorted(
        docname
        for docname, sources in data.doc_sources.items()
        if any(_may_change(env, docname, name, new) for name in sources & changed)
    )


class _NewData:
    """What each changed source gained, found once per build however many pages ask."""

    def __init__(self, env: BuildEnvironment) -> None:
        self.env = env
        self._touched: dict[str, Touched | None] = {}
        self._histories: dict[tuple[str, str], list[TestHistory]] = {}

    def touched(self, name: str) -> Touched | None:
        """The source's new builds; the records then name the data every page
        shows, whether it is read again or not."""
        if name not in self._touched:
            self._touched[name] = None
            if name in settings_of(self.env.config).sources:  # else no longer configured
                data, loaded = env_data(self.env), load_source(self.env, name)
                self._touched[name] = touched_series(
                    loaded.dataset.builds, data.provenance.get(name), loaded.provenance
                )
                data.provenance[name] = loaded.provenance
                data.fingerprints[name] = loaded.fingerprint
        return self._touched[name]

    def histories(self, name: str, metric: str, touched: Touched) -> list[TestHistory]:
        """The histories of ``metric`` that the new builds alone make.

        A series new to a page has its newest run in the new builds, or it
        would not be new to it: its name, tags and dimensions are those.
        """
        key = (name, metric)
        if key not in self._histories:
            rules = rules_for(load_source(self.env, name).source.spec.dimensions)
            self._histories[key] = histories(touched.builds, metric, rules=rules)
        return self._histories[key]


def _may_change(env: BuildEnvironment, docname: str, name: str, new: _NewData) -> bool:
    data = env_data(env)
    selections = data.selections.get(docname, {}).get(name)
    if name in data.whole_uses.get(docname, ()) or not selections:
        return True
    touched = new.touched(name)
    if touched is None:
        return True
    graphed = {key for source, _metric, key in data.claimed.get(docname, ()) if source == name}
    if not graphed.isdisjoint(touched.keys):
        return True
    return touched.builds != [] and any(
        _picks(selection, new.histories(name, selection.metric, touched))
        for selection in selections
    )


def _picks(selection: GraphSelection, candidates: list[TestHistory]) -> bool:
    """Whether the graph picks one of ``candidates`` (histories it graphs none of now)."""
    try:
        tests = re.compile(selection.tests) if selection.tests is not None else None
        tag_filter = compile_filter(selection.filter) if selection.filter else None
    except (re.error, FilterError):
        return True  # the page says why; it is read again, as the graph may work now
    return bool(select(candidates, tag_filter, tests))
