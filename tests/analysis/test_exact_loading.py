"""The compiled loops load without scipy.linalg, and leave it importable."""

from __future__ import annotations

import subprocess
import sys


def run(statements: str) -> list[str]:
    """What a fresh interpreter prints after ``statements``, line by line."""
    done = subprocess.run(
        [sys.executable, "-c", statements], capture_output=True, text=True, check=True
    )
    return done.stdout.split()


LOAD = (
    "from sphinxcontrib_trending.analysis.exact_loading import compiled_loops\ncompiled_loops()\n"
)


def test_loading_the_loops_leaves_scipy_linalg_unloaded_and_importable() -> None:
    printed = run(
        "import sys\n" + LOAD + "print('scipy.linalg' in sys.modules)\n"
        "import scipy.linalg.cython_blas\nprint(scipy.linalg.cython_blas.__name__)\n"
    )
    assert printed == ["False", "scipy.linalg.cython_blas"]


def test_a_loaded_scipy_linalg_is_left_as_it_is() -> None:
    printed = run(
        "import sys\nimport scipy.linalg.cython_blas as blas\n"
        + LOAD
        + "print(sys.modules['scipy.linalg.cython_blas'] is blas)\n"
        "from numba.np.arraymath import _HAVE_BLAS\nprint(_HAVE_BLAS)\n"
    )
    assert printed == ["True", "True"]


def test_a_process_of_several_threads_keeps_numba_s_own_probe() -> None:
    """Another thread could import scipy.linalg while the probe's name is taken."""
    printed = run(
        "import sys, threading\nstop = threading.Event()\n"
        "thread = threading.Thread(target=stop.wait)\nthread.start()\n"
        + LOAD
        + "stop.set()\nthread.join()\nprint('scipy.linalg' in sys.modules)\n"
    )
    assert printed == ["True"]
