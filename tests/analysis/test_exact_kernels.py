"""The exact search's compiled loops: compiled once per machine, imported only to search."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numba

from sphinxcontrib_trending.analysis import exact_kernels

ROOT = Path(__file__).resolve().parents[2]


def test_every_kernel_keeps_its_machine_code_for_later_processes() -> None:
    kernels = [
        value
        for value in vars(exact_kernels).values()
        if isinstance(value, numba.core.registry.CPUDispatcher)
    ]
    assert len(kernels) >= 6
    assert [
        kernel.py_func.__name__
        for kernel in kernels
        if kernel._cache.__class__.__name__ != "FunctionCache"
    ] == []


def test_the_extension_imports_numba_only_when_a_search_runs() -> None:
    code = (
        "import sys\n"
        "import sphinxcontrib_trending.sphinxext\n"
        "from sphinxcontrib_trending.analysis import classify\n"
        "assert 'numba' not in sys.modules, 'imported with the extension'\n"
        "classify([1.0, 2.0, 9.0, 9.5], search='exact')\n"
        "assert 'numba' in sys.modules\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code], check=True, env=environment, cwd=ROOT)
