"""Sphinx's pickled environment is loaded without the cycle collector, then frozen.

At CSIT's size it holds every graph's anchor and links, about 130,000
objects; the collections their allocations triggered took more than half
of its load, on every build, one with nothing to do included.
"""

from __future__ import annotations

import gc
import pickle
from typing import Any

import pytest
import sphinx.application

from tests.sphinxext.conftest import SiteFactory


def test_the_environment_loads_with_the_collector_paused_and_stays_frozen(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    site().build()
    loads: list[bool] = []
    real_load = pickle.load

    def load(file: Any) -> Any:
        loads.append(gc.isenabled())
        return real_load(file)

    monkeypatch.setattr(sphinx.application.pickle, "load", load)
    assert gc.isenabled()
    app = site()  # the second app of the same site loads the first one's environment
    assert loads == [False]
    assert gc.isenabled()
    assert gc.get_freeze_count() > len(app.env.trending_data.claims)
    app.build()
    assert gc.get_freeze_count() == 0  # collectable again once the build is over
