"""Whether a source changed since the pages using it were read: its fingerprint now.

Every build asks this of every source in use before it reads a page, and
most builds of a site find nothing changed; so this module, unlike
:mod:`.process_memo`, imports nothing that loads or groups data.
"""

from __future__ import annotations

import hashlib

from sphinx.environment import BuildEnvironment

from sphinxcontrib_trending.ingest.freshness import fingerprint
from sphinxcontrib_trending.settings import Source
from sphinxcontrib_trending.sphinxext.config import settings_of

_fingerprints: dict[str, str] = {}


def current_fingerprint(env: BuildEnvironment, source: Source) -> str:
    """The data's fingerprint, extended by what reshapes it after loading
    (frequency normalisation, dimension rules), so pages follow those too.

    Taken once per build (:func:`new_build` forgets them): a store's is a
    listing of its thousands of files, and every page asks.
    """
    found = _fingerprints.get(source.name)
    if found is None:
        settings = settings_of(env.config)
        shaping = repr((settings.norm_frequency, source.spec.dimensions)).encode()
        data = fingerprint(source.spec, settings.cache_dir)
        found = _fingerprints[source.name] = f"{data}-{hashlib.sha256(shaping).hexdigest()[:16]}"
    return found


def new_build() -> None:
    """A build begins: the sources' files may have changed since the last one."""
    _fingerprints.clear()
