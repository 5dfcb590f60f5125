"""Loading the exact search's compiled loops, without the linear algebra they never call.

The first compiled function a process runs makes numba load its own
implementations of numpy, and among them it asks whether a BLAS is there
for ``np.dot`` by importing ``scipy.linalg.cython_blas``, which imports all
of ``scipy.linalg``: a third of the 0.6 s of a core that each worker of a
build's grouping spent loading the loops (measured with ``python3 -X
importtime`` and the workers' CPU time).  The loops of :mod:`.exact_kernels`
call no BLAS, and numba, told there is none, only falls back to its own
loops for a ``np.dot`` compiled later in that process.

So that probe is made to fail while the loops are first loaded, by naming
the module as missing in ``sys.modules`` (which makes an import of it raise
``ImportError``), and the name is taken back at once: a later ``import
scipy.linalg`` anywhere in the process works as usual.  It is done only
where it can harm nothing: in a process of one thread (the forked workers
of a grouping are; another thread could import scipy meanwhile), when
scipy.linalg is not loaded already (then the probe costs nothing) and before
numba has made its probe.
"""

from __future__ import annotations

import functools
import sys
import threading
from types import ModuleType

import numpy as np

BLAS_PROBE = "scipy.linalg.cython_blas"
"""What numba imports to learn whether a BLAS is there."""
NUMBA_PROBER = "numba.np.arraymath"
"""The numba module that makes that probe when it is first imported."""


@functools.cache
def compiled_loops() -> ModuleType:
    """:mod:`.exact_kernels`, imported and ready to run: numba's own setup done once."""
    skip_probe = (
        threading.active_count() == 1
        and BLAS_PROBE not in sys.modules
        and NUMBA_PROBER not in sys.modules
    )
    if skip_probe:
        sys.modules[BLAS_PROBE] = None  # type: ignore[assignment]
    try:
        from sphinxcontrib_trending.analysis import exact_kernels

        # the first run of a compiled function is what loads numba's implementations:
        # this one is cheap, and every search prices its partition with it anyway
        empty = np.zeros(0)
        exact_kernels.welford_pass(np.zeros(0, dtype=np.int64), empty, empty, 0, 0, 0.0, 0.0, 0.0)
    finally:
        if skip_probe and sys.modules.get(BLAS_PROBE, 0) is None:
            del sys.modules[BLAS_PROBE]
    return exact_kernels
