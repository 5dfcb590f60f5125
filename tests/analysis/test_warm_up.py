"""The warm-up before the grouping's workers fork loads every loop a build's grouping runs."""

from __future__ import annotations

import json
import subprocess
import sys

LOADED_AFTER_A_BUILD = """
import json
import numba
import numpy as np
from sphinxcontrib_trending.analysis import batch_kernels, exact_kernels
from sphinxcontrib_trending.analysis.identity import GroupingSpec
from sphinxcontrib_trending.analysis.many import (
    SeriesJob, SeriesTask, classify_batch, classify_job, extend_job
)
from sphinxcontrib_trending.analysis.warm_up import load_grouping

def loaded():
    return {
        f"{module.__name__}.{name}": len(value.signatures)
        for module in (exact_kernels, batch_kernels)
        for name, value in vars(module).items()
        if isinstance(value, numba.core.registry.CPUDispatcher)
    }

load_grouping()
warm = loaded()
rng = np.random.default_rng(5)
tasks = []
for number in range(60):
    levels = rng.choice([100.0, 120.0, 80.0], size=1 + number % 4)
    values = np.concatenate([rng.normal(level, 1 + number % 3, 40) for level in levels])
    values[rng.integers(len(values), size=number % 3)] *= 1.5  # spikes
    if number % 5 == 0:
        values[-1] = values.max() * 1.2  # a new largest value: a new bit model
    if number % 7 == 0:
        values[rng.integers(len(values), size=3)] = np.nan
    spec = GroupingSpec()
    seen = len(values) - 1
    _, saved = classify_job(SeriesJob("s", values[:seen], spec))
    extend_job(SeriesJob("s", values, spec), seen, saved.to_bytes())
    tasks.append(SeriesTask(SeriesJob("s", values, spec), (seen, saved.to_bytes())))
classify_batch(tuple(tasks))
print(json.dumps([warm, loaded()]))
"""


def test_every_loop_a_grouping_extends_with_is_loaded_by_the_warm_up() -> None:
    """A worker forked after :func:`.load_grouping` loads no compiled loop of its own
    while it groups series from scratch and extends them, alone and in a batch (in a
    fresh process: this one may have loaded them already)."""
    found = subprocess.run(
        [sys.executable, "-c", LOADED_AFTER_A_BUILD], capture_output=True, text=True, check=True
    )
    warm, after = json.loads(found.stdout.splitlines()[-1])
    assert warm == after
    assert sum(warm.values()) > 0
