"""The Sphinx side: configuration, directives, nodes and environment data.

Each feature registers itself through its own ``register(app)``; this module
only wires them together and answers the incremental-build questions that
span features.
"""

from __future__ import annotations

import atexit
import functools
import gc
from typing import Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from sphinxcontrib_trending.engine.collector import collector_paused
from sphinxcontrib_trending.ingest.download import new_round
from sphinxcontrib_trending.sphinxext import (
    assets,
    config,
    directives,
    downloads,
    env_records,
    feeds,
    figure_files,
    latex,
    mathml,
    nodes,
    page_reuse,
    search,
)
from sphinxcontrib_trending.sphinxext.process_memo import (
    current_fingerprint,
    new_build,
    plan_grouping,
    preanalyse,
    preload,
)
from sphinxcontrib_trending.version import __version__


def _outdated_by_data(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Pages whose sources changed, including by a new file matching a glob.

    ``note_dependency`` only notices files it already knows about; comparing
    each source's fingerprint catches archives that appeared since.  Of the
    pages using a changed source, those that may show something else are
    read again (:mod:`.page_reuse`): a page of graphs whose series the new
    builds left alone is kept as it is.
    """
    new_build()  # the first thing each build does: fingerprints are taken anew
    data = env_records.env_data(env)
    settings = config.settings_of(app.config)
    changed_sources = set()
    for name in env_records.sources_in_use(env):
        source = settings.sources.get(name)
        if source is None or data.fingerprints.get(name) != current_fingerprint(env, source):
            changed_sources.add(name)
    if not changed_sources:
        return []
    # telling the pages apart may load a source: what it makes lives until the
    # build ends, out of the collector's walks, as _preload keeps it
    with collector_paused():
        outdated = page_reuse.pages_to_read(env, changed_sources)
        gc.freeze()
    return outdated


def _preload(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """Parse sources once in the main process (and with ``-j N`` group them) before readers fork.

    The grouping runs on ``trending_workers`` processes (by default one per
    core, or ``-j N`` if more): in a plain ``sphinx-build`` each page groups
    the series it shows on them (see :func:`.plan_grouping`).

    Only when a page to be read used a source last time, or on a first
    build: editing a page without trending directives loads nothing.  A page
    that newly uses a source still loads it on demand while it is read.
    """
    workers = plan_grouping(config.settings_of(app.config).workers, app.parallel)
    used = env_records.env_data(env).doc_sources
    if docnames and (not used or any(docname in used for docname in docnames)):
        # the loaded data lives until the build ends: keep the cycle
        # collector from walking it, the first time as soon as the load ends
        # and then again and again while the pages render
        with collector_paused():
            preload(env)
            if app.parallel > 1 and workers > 1:
                preanalyse(env, workers)
            gc.freeze()
        _skip_the_collection_at_exit()


def _thaw(app: Sphinx, exception: Exception | None) -> None:
    """What :func:`_preload` froze is collectable again (a process may build twice)."""
    gc.unfreeze()


@functools.cache
def _skip_the_collection_at_exit() -> None:
    """Freeze the heap when the process exits, before the interpreter's last collection.

    That collection walks every object the build loaded, only to free
    memory the process is about to give back whole: 5 of the 6 seconds a
    ``sphinx-build`` took to exit at a quarter of CSIT's size.
    """
    atexit.register(gc.freeze)


def _new_download_round(app: Sphinx) -> None:
    """Each build fetches a URL once, and every page of it sees the same bytes."""
    new_round()


def setup_extension(app: Sphinx) -> dict[str, Any]:
    config.register(app)
    nodes.register(app)
    figure_files.register(app)
    directives.register(app)
    search.register(app)
    downloads.register(app)
    feeds.register(app)
    assets.register(app)
    app.connect("builder-inited", _new_download_round)
    mathml.register(app)
    latex.register(app)
    app.connect("env-get-outdated", _outdated_by_data)
    app.connect("env-before-read-docs", _preload)
    app.connect("build-finished", _thaw)
    app.connect("env-purge-doc", env_records.purge_doc)
    app.connect("env-merge-info", env_records.merge_info)
    return {
        "version": __version__,
        "env_version": env_records.ENV_VERSION,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
