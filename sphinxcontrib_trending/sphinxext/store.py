"""The one place where this extension keeps data on the Sphinx environment.

Only small bookkeeping lives on ``env`` (it is pickled after every build and
shipped between parallel workers): which documents use which source, the
source fingerprints they were read with, and where each test's graph anchor
is.  Parsed archives and analyses stay in the on-disk cache and in process
memory.

``ENV_VERSION`` changes whenever the shape of that bookkeeping changes, so
Sphinx throws away an environment pickled by an older release instead of
reading attributes that no longer mean the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

ENV_VERSION = 1


@dataclass
class TrendingEnvData:
    doc_sources: dict[str, set[str]] = field(default_factory=dict)
    fingerprints: dict[str, str] = field(default_factory=dict)
    anchors: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)


def env_data(env: BuildEnvironment) -> TrendingEnvData:
    data = getattr(env, "trending_data", None)
    if data is None:
        data = TrendingEnvData()
        env.trending_data = data  # type: ignore[attr-defined]
    return data


def note_source_use(env: BuildEnvironment, docname: str, source: str, fingerprint: str) -> None:
    data = env_data(env)
    data.doc_sources.setdefault(docname, set()).add(source)
    data.fingerprints[source] = fingerprint


def claim_anchor(env: BuildEnvironment, source: str, key: str, anchor: str) -> str | None:
    """Make this page the home of a test's graph anchor, unless one already is.

    Returns None when the claim succeeded, else the page that holds the
    anchor (possibly this one, for a test graphed twice on a page): an HTML
    id must exist once, and links must land on one graph.
    """
    data = env_data(env)
    existing = data.anchors.get((source, key))
    if existing is not None:
        return existing[0]
    data.anchors[(source, key)] = (env.docname, anchor)
    return None


def purge_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    data = env_data(env)
    data.doc_sources.pop(docname, None)
    for target, (owner, _anchor) in list(data.anchors.items()):
        if owner == docname:
            del data.anchors[target]


def merge_info(
    app: Sphinx, env: BuildEnvironment, docnames: Iterable[str], other: BuildEnvironment
) -> None:
    data = env_data(env)
    theirs = env_data(other)
    for docname in docnames:
        if docname in theirs.doc_sources:
            data.doc_sources[docname] = theirs.doc_sources[docname]
    data.fingerprints.update(theirs.fingerprints)
    for target, (owner, anchor) in theirs.anchors.items():
        if owner in docnames:
            data.anchors.setdefault(target, (owner, anchor))


def sources_in_use(env: BuildEnvironment) -> set[str]:
    return {source for sources in env_data(env).doc_sources.values() for source in sources}


def docs_using(env: BuildEnvironment, changed_sources: set[str]) -> list[str]:
    return sorted(
        docname
        for docname, sources in env_data(env).doc_sources.items()
        if sources & changed_sources
    )
