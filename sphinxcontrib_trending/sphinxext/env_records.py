"""The one place where this extension keeps data on the Sphinx environment.

Only small bookkeeping lives on ``env`` (it is pickled after every build and
shipped between parallel workers): which documents use which source, the
source fingerprints they were read with, and where each test's graph anchor
is.  Parsed archives and analyses stay in the on-disk cache and in process
memory.

``ENV_VERSION`` changes whenever the shape of that bookkeeping changes, so
Sphinx throws away an environment pickled by an older release instead of
reading attributes that no longer mean the same; so does the shape of this
extension's nodes in the pickled doctrees (a table's column ``kinds``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from sphinxcontrib_trending.analysis.identity import SeriesRef, SeriesTarget
from sphinxcontrib_trending.sphinxext.warnings import warn

if TYPE_CHECKING:  # its module reads stores: not imported by a build that reads nothing
    from sphinxcontrib_trending.analysis.touched_series import Provenance

ENV_VERSION = 8

Record = TypeVar("Record")

Target = SeriesTarget
"""A series' graph anchor is named by its source, metric and history key."""

Key = tuple[str, str, str]
"""How the environment names a series: its source, metric and history key.

Plain strings in a tuple, not a :class:`~.SeriesTarget`: the environment
holds a few per graphed series (some 80,000 at CSIT's size) and is
unpickled at the start of every build and pickled at the end of every
build that reads a page.  A tuple of strings is made and hashed in C; a
frozen dataclass's constructor and hash run as Python code for each.
Ordered as the target is (source, then metric, then key).
"""


def key_of(target: Target) -> Key:
    return (target.source, target.series.metric, target.series.key)


def target_of(key: Key) -> Target:
    source, metric, history_key = key
    return SeriesTarget(source, SeriesRef(metric, history_key))


class Claim(NamedTuple):
    """A page's first graph of a series: where it is and what it shows."""

    anchor: str
    line: int | None
    title: str
    """The test's display name, what the site's search box matches and lists."""
    detail: str
    """Its testbed and dimensions (``testbed=2n-icx nic=...``), matched too."""


class GraphSelection(NamedTuple):
    """What one graph directive picks of its source's series, as written on its page."""

    metric: str
    tests: str | None
    """The ``:tests:`` regular expression, if any."""
    filter: str | None
    """The ``:filter:`` tag expression, if any."""


class IndexEntry(NamedTuple):
    """A graphed series of the site, at its anchor's owner."""

    key: Key
    title: str
    detail: str
    docname: str
    anchor: str


@dataclass
class TrendingEnvData:
    doc_sources: dict[str, set[str]] = field(default_factory=dict)
    fingerprints: dict[str, str] = field(default_factory=dict)
    claims: dict[Key, dict[str, Claim]] = field(default_factory=dict)
    """Per series, every page that graphs it: its first graph there."""
    claimed: dict[str, set[Key]] = field(default_factory=dict)
    """Per page, the tests it graphs (``claims`` turned round): a page read again
    drops its claims without a walk over every test's."""
    links: dict[str, set[Key]] = field(default_factory=dict)
    """Per page, the tests its tables link to."""
    owners: dict[Key, str] = field(default_factory=dict)
    """The anchor owners of the last build, to find pages to rewrite when one moves."""
    search_pages: set[str] = field(default_factory=set)
    """Pages with a search box: the site's graph index is written only for them."""
    provenance: dict[str, Provenance | None] = field(default_factory=dict)
    """Per source, the data files of the builds its pages were last read with."""
    whole_uses: dict[str, set[str]] = field(default_factory=dict)
    """Per page, the sources a directive other than a graph of chosen series read:
    such a page shows something of every series or of the newest build."""
    selections: dict[str, dict[str, list[GraphSelection]]] = field(default_factory=dict)
    """Per page and source, what its graph directives pick of the source's series."""
    figure_homes: dict[str, FigureHome] = field(default_factory=dict)
    """Per page with graphs, where its last read wrote their figures."""


class FigureHome(NamedTuple):
    """Where the figures of a page's last read lie (see :mod:`.figure_files`)."""

    output: str
    """The interactive HTML build (``builder:outdir``) whose output they were written
    to as the page's data files, or "" for beside the doctrees."""
    files: str
    """The files they lie in, one a line, relative to that output or to the doctrees."""


def note_figure_home(env: BuildEnvironment, docname: str, home: FigureHome | None) -> None:
    """Where the page's figures lie now; None: it has none."""
    homes = env_data(env).figure_homes
    if home is None:
        homes.pop(docname, None)
    else:
        homes[docname] = home


def figure_homes(env: BuildEnvironment) -> dict[str, FigureHome]:
    return env_data(env).figure_homes


def env_data(env: BuildEnvironment) -> TrendingEnvData:
    data = getattr(env, "trending_data", None)
    if data is None:
        data = TrendingEnvData()
        env.trending_data = data  # type: ignore[attr-defined]
    return data


def note_source_use(
    env: BuildEnvironment,
    docname: str,
    source: str,
    fingerprint: str,
    provenance: Provenance | None,
) -> None:
    data = env_data(env)
    data.doc_sources.setdefault(docname, set()).add(source)
    data.fingerprints[source] = fingerprint
    data.provenance[source] = provenance


def note_whole_use(env: BuildEnvironment, docname: str, source: str) -> None:
    env_data(env).whole_uses.setdefault(docname, set()).add(source)


def note_selection(
    env: BuildEnvironment, docname: str, source: str, selection: GraphSelection
) -> None:
    env_data(env).selections.setdefault(docname, {}).setdefault(source, []).append(selection)


def claim_anchor(
    env: BuildEnvironment, target: Target, line: int | None, title: str, detail: str
) -> bool:
    """Record that this page graphs a test; True for its first graph on this page.

    Which page owns the anchor is settled only after every page is read
    (:func:`settle_anchors`), so the answer never depends on the order in
    which parallel readers happen to finish.
    """
    data = env_data(env)
    key = key_of(target)
    pages = data.claims.setdefault(key, {})
    if env.docname in pages:
        return False
    pages[env.docname] = Claim(target.anchor, line, title, detail)
    data.claimed.setdefault(env.docname, set()).add(key)
    return True


def note_links(env: BuildEnvironment, docname: str, targets: set[Target]) -> None:
    if targets:
        env_data(env).links[docname] = {key_of(target) for target in targets}


def anchor_owner(env: BuildEnvironment, target: Target) -> tuple[str, str] | None:
    """The page holding a test's anchor, and the anchor: the first page by name.

    A serial build reads pages in name order, so this is also the page a
    serial build would see first.
    """
    return owner_of(env, key_of(target))


def owner_of(env: BuildEnvironment, key: Key) -> tuple[str, str] | None:
    """:func:`anchor_owner` of the series the environment names ``key``."""
    pages = env_data(env).claims.get(key)
    if not pages:
        return None
    owner = min(pages)
    return owner, pages[owner].anchor


def graph_index(env: BuildEnvironment) -> list[IndexEntry]:
    """Every graphed series of the site at its anchor's owner, by title."""
    entries = []
    for key, pages in env_data(env).claims.items():
        if pages:
            owner = min(pages)
            claim = pages[owner]
            entries.append(IndexEntry(key, claim.title, claim.detail, owner, claim.anchor))
    return sorted(entries, key=lambda entry: (entry.title, entry.key))


def note_search_page(env: BuildEnvironment) -> None:
    env_data(env).search_pages.add(env.docname)


def has_search_pages(env: BuildEnvironment) -> bool:
    return bool(env_data(env).search_pages)


def settle_anchors(env: BuildEnvironment, read_now: Iterable[str]) -> list[str]:
    """After all pages are read: warn about second homes, list pages to rewrite.

    A page graphing a test that another page owns is warned about when it
    was read in this build, the same for any ``-j``.  Pages not read now but
    whose links or anchors depend on an owner that changed are returned, so
    Sphinx writes them again.
    """
    data = env_data(env)
    read = set(read_now)
    second_homes = []
    for key, pages in data.claims.items() if read else ():
        owner = min(pages)
        for docname in set(pages) & read - {owner}:
            second_homes.append((docname, pages[docname].line or 0, key, owner))
    for docname, line, (_source, metric, history_key), owner in sorted(second_homes):
        warn(
            f"test {history_key!r} (metric {metric!r}) already has its graph anchor "
            f"on page {owner!r}; links to it go there",
            "link",
            location=(docname, line or None),
        )
    owners = {key: min(pages) for key, pages in data.claims.items() if pages}
    # the whole comparison only when something moved: with 20,000 series it
    # hashes every one twice, and most builds (every one that reads nothing)
    # move nothing, which the dictionaries' equality tells at once
    moved = (
        {key for key in set(owners) | set(data.owners) if owners.get(key) != data.owners.get(key)}
        if owners != data.owners
        else set()
    )
    data.owners = owners
    rewrite = set()
    for key in moved:
        rewrite.update(data.claims.get(key, {}))
    rewrite.update(docname for docname, keys in data.links.items() if keys & moved)
    return sorted(rewrite & env.all_docs.keys() - read)


def purge_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    data = env_data(env)
    data.doc_sources.pop(docname, None)
    data.whole_uses.pop(docname, None)
    data.selections.pop(docname, None)
    data.links.pop(docname, None)
    data.figure_homes.pop(docname, None)
    data.search_pages.discard(docname)
    for key in data.claimed.pop(docname, ()):
        pages = data.claims.get(key, {})
        pages.pop(docname, None)
        if not pages:
            data.claims.pop(key, None)


def merge_info(
    app: Sphinx, env: BuildEnvironment, docnames: Iterable[str], other: BuildEnvironment
) -> None:
    data = env_data(env)
    theirs = env_data(other)
    merged = set(docnames)
    _take(data.doc_sources, theirs.doc_sources, merged)
    _take(data.whole_uses, theirs.whole_uses, merged)
    _take(data.selections, theirs.selections, merged)
    _take(data.figure_homes, theirs.figure_homes, merged)
    _take(data.links, theirs.links, merged)
    _take(data.claimed, theirs.claimed, merged)
    data.fingerprints.update(theirs.fingerprints)
    data.provenance.update(theirs.provenance)
    data.search_pages |= theirs.search_pages & merged
    for key, pages in theirs.claims.items():
        for docname in merged & pages.keys():
            data.claims.setdefault(key, {})[docname] = pages[docname]


def _take(mine: dict[str, Record], theirs: dict[str, Record], docnames: set[str]) -> None:
    """A parallel reader's records of the pages it read replace ours."""
    for docname in docnames & theirs.keys():
        mine[docname] = theirs[docname]


def sources_in_use(env: BuildEnvironment) -> set[str]:
    return {source for sources in env_data(env).doc_sources.values() for source in sources}
