"""The Sphinx side: configuration, directives, nodes and environment data.

Each feature registers itself through its own ``register(app)``; this module
only wires them together and answers the incremental-build questions that
span features.

Most builds of a site find nothing to read: registering the extension,
validating its configuration and asking each source whether it changed
import none of the data stack (numpy, pyarrow, the HTTP client, the
analysis and the rendering).  What loads, groups and draws data comes in
with the directives, when a page is read (:func:`.directives.register`),
and with the preload before the readers start (:func:`_preload`).
"""

from __future__ import annotations

import atexit
import functools
import gc
import sys
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment

from sphinxcontrib_trending.engine.collector import collector_paused
from sphinxcontrib_trending.ingest.downloaded import new_round
from sphinxcontrib_trending.sphinxext import (
    assets,
    background_writes,
    config,
    directives,
    downloads,
    env_records,
    feeds,
    figure_files,
    latex,
    mathml,
    nodes,
    search,
)
from sphinxcontrib_trending.sphinxext.fingerprints import current_fingerprint, new_build
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
    # telling the pages apart may load a source (the data stack comes with it,
    # as in _preload): what it makes lives until the build ends, out of the
    # collector's walks, as _preload keeps it
    from sphinxcontrib_trending.sphinxext import page_reuse

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
    The loading and grouping machinery is imported here, when there is
    something to read, not with the extension.
    """
    if not docnames:
        return
    from sphinxcontrib_trending.sphinxext.process_memo import plan_grouping, preanalyse, preload

    workers = plan_grouping(config.settings_of(app.config).workers, app.parallel)
    used = env_records.env_data(env).doc_sources
    if not used or any(docname in used for docname in docnames):
        # the loaded data lives until the build ends: keep the cycle
        # collector from walking it, the first time as soon as the load ends
        # and then again and again while the pages render
        with collector_paused():
            preload(env)
            if app.parallel > 1 and workers > 1:
                preanalyse(env, workers)
            gc.freeze()
        _skip_the_collection_at_exit()


_collector_was_enabled = True


def _pause_collector(app: Sphinx, config: Config) -> None:
    """Sphinx loads its pickled environment next: without the cycle collector.

    The environment holds every page's graph anchors and links, some
    hundred thousand objects at CSIT's size, and the collections their
    allocations triggered walked them again and again: loading it took 0.7
    to 1.0 s with the collector and 0.3 s without.  Sphinx loads it between
    ``config-inited`` and ``builder-inited`` (:func:`_resume_collector`).
    """
    global _collector_was_enabled
    _collector_was_enabled = gc.isenabled()
    gc.disable()


def _resume_collector(app: Sphinx) -> None:
    """The environment is loaded: frozen, so that no collection of this build walks it.

    It lives until the build ends (:func:`_thaw`), like the sources
    :func:`_preload` loads and freezes.
    """
    gc.freeze()
    if _collector_was_enabled:
        gc.enable()
    _skip_the_collection_at_exit()


def _thaw(app: Sphinx, exception: Exception | None) -> None:
    """What the build froze is collectable again (a process may build twice)."""
    gc.unfreeze()


def _finish_writes(app: Sphinx, exception: Exception | None) -> None:
    """The files handed to the writing thread are whole before the build ends.

    A write that failed fails the build, unless it failed already.
    """
    try:
        background_writes.wait()
    except Exception:
        if exception is None:
            raise


def _end_figure_workers(app: Sphinx, exception: Exception | None) -> None:
    """The workers that drew graph pages' figures end with the build, if a page forked them.

    Looked up, not imported: the module comes with the directives, which a
    build that reads no page never imports (see :mod:`.directives`).
    """
    figure_workers = sys.modules.get(f"{__name__}.figure_workers")
    if figure_workers is not None:
        figure_workers.build_finished()


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
    app.connect("config-inited", _pause_collector, priority=900)
    app.connect("builder-inited", _resume_collector, priority=0)
    app.connect("env-get-outdated", _outdated_by_data)
    app.connect("env-before-read-docs", _preload)
    app.connect("build-finished", _thaw)
    app.connect("build-finished", _finish_writes, priority=0)
    app.connect("build-finished", _end_figure_workers)
    app.connect("env-purge-doc", env_records.purge_doc)
    app.connect("env-merge-info", env_records.merge_info)
    return {
        "version": __version__,
        "env_version": env_records.ENV_VERSION,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
