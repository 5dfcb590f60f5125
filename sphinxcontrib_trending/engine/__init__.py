"""Running many independent tasks in order: in-process, on local workers or on a Dask cluster.

No Sphinx here: the CLI, the Sphinx extension and the benchmarks all go
through :func:`map_ordered`.
"""

from sphinxcontrib_trending.engine.mapping import EngineError, TaskFailed, map_ordered

__all__ = ["EngineError", "TaskFailed", "map_ordered"]
