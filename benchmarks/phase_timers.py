"""``sphinx-build`` with a wall-clock timer around each phase of the extension.

A profiler slows the many small calls of the figures and histories far more
than the grouping's compiled loops, so its shares mislead; these timers
cost nothing measurable.  Each phase is the wall time spent inside one
function (nested calls of the same phase counted once); the grouping's
workers are forked processes, so its CPU time is also taken from the
operating system's count for finished child processes.

Usage::

    python benchmarks/phase_timers.py OUT.jsonl [sphinx-build arguments ...]

Appends one JSON line to ``OUT.jsonl``: seconds per phase, and ``whole``.
"""

from __future__ import annotations

import atexit
import functools
import importlib
import json
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

PHASES = (
    ("sphinxcontrib_trending.sphinxext.process_memo", "load_source", "read the source"),
    ("sphinxcontrib_trending.sphinxext.process_memo", "histories", "histories"),
    ("sphinxcontrib_trending.analysis.kept_histories", "KeptHistories.histories", "histories"),
    ("sphinxcontrib_trending.sphinxext.process_memo", "classify_series", "grouping"),
    ("sphinxcontrib_trending.sphinxext.process_memo", "summarize", "summaries"),
    ("sphinxcontrib_trending.sphinxext.directives.graph", "trend_figure", "figures"),
    ("sphinxcontrib_trending.sphinxext.figure_workers", "_drawn", "figures"),
    ("sphinxcontrib_trending.sphinxext.figure_workers", "figure_refs", "figures: page entries"),
    ("sphinxcontrib_trending.sphinxext.figure_workers", "_workers_for", "figures: forking"),
    ("sphinxcontrib_trending.sphinxext.directives.graph", "GraphDirective._entry", "graph entries"),
    ("sphinxcontrib_trending.sphinxext.directives.graph", "GraphDirective.render", "graph pages"),
    ("sphinx.builders", "Builder.read", "sphinx: read"),
    ("sphinx.builders", "Builder.write", "sphinx: write"),
)
"""(module, attribute, phase): where each phase is timed."""

seconds: defaultdict[str, float] = defaultdict(float)
_inside: set[str] = set()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(function: Callable[..., Any], phase: str) -> Callable[..., Any]:
    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        if phase in _inside:
            return function(*args, **kwargs)
        _inside.add(phase)
        started, children = time.perf_counter(), _children_cpu()
        try:
            return function(*args, **kwargs)
        finally:
            _inside.discard(phase)
            seconds[phase] += time.perf_counter() - started
            if phase == "grouping":
                seconds["grouping: workers' CPU"] += _children_cpu() - children

    return timed


def install() -> None:
    """Wrap every phase's function where the build looks it up."""
    for module_name, attribute, phase in PHASES:
        owner: Any = importlib.import_module(module_name)
        *path, name = attribute.split(".")
        for part in path:
            owner = getattr(owner, part)
        setattr(owner, name, _timed(getattr(owner, name), phase))


def main() -> int:
    output = sys.argv[1]
    started = time.perf_counter()

    def report() -> None:
        found = {phase: round(value, 3) for phase, value in sorted(seconds.items())}
        found["whole"] = round(time.perf_counter() - started, 3)
        with open(output, "a", encoding="utf-8") as out:
            out.write(json.dumps(found) + "\n")

    atexit.register(report)
    install()
    from sphinx.cmd.build import main as sphinx_build

    return sphinx_build(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
