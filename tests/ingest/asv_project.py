"""A tiny asv project, run by the real ``asv``: the results files the asv tests read.

The benchmarks cover what a results folder can hold: a parameterised
benchmark with one combination skipped (``NotImplementedError`` in its
setup, which asv records as NaN), a failing benchmark (null), and the
``time_``, ``peakmem_`` and ``track_`` (with its own unit) kinds.  asv runs
in the test's own Python (``--python=same``) on one commit of a throwaway
git repository, with samples recorded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BENCHMARKS = """
class Sum:
    params = [[10, 100], ["int", "float"]]
    param_names = ["n", "kind"]

    def setup(self, n, kind):
        if kind == "float" and n == 100:
            raise NotImplementedError
        self.data = list(range(n))

    def time_sum(self, n, kind):
        sum(self.data)


def time_plain():
    sum(range(50))


def track_answer():
    return 42


track_answer.unit = "answers"


def peakmem_list():
    [0] * 10000


def time_broken():
    raise ValueError("boom")
"""

MACHINE = "testbox"


def _git(folder: Path, *arguments: str) -> str:
    command = ["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", *arguments]
    return subprocess.run(command, cwd=folder, check=True, capture_output=True, text=True).stdout


def run_asv(folder: Path) -> Path:
    """Make the project in ``folder``, run asv once, and return its results folder."""
    (folder / "benchmarks").mkdir(parents=True)
    (folder / "benchmarks" / "__init__.py").write_text("")
    (folder / "benchmarks" / "bench.py").write_text(BENCHMARKS)
    config = {
        "version": 1,
        "project": "tiny",
        "repo": ".",
        "branches": ["main"],
        "environment_type": "existing",
        "benchmark_dir": "benchmarks",
        "results_dir": "results",
        "html_dir": "html",
    }
    (folder / "asv.conf.json").write_text(json.dumps(config))
    _git(folder, "init", "-q", "-b", "main", ".")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-q", "-m", "tiny")
    commit = _git(folder, "rev-parse", "HEAD").strip()
    # asv keeps its machines in ~/.asv-machine.json: a home of the project's own,
    # so tests never touch the user's file nor race each other on it
    environment = os.environ | {"HOME": str(folder)}
    asv = [sys.executable, "-m", "asv"]
    machine = [*asv, "machine", "--machine", MACHINE, "--yes"]
    subprocess.run(machine, cwd=folder, check=True, capture_output=True, env=environment)
    run = [*asv, "run", "--machine", MACHINE, "--quick", "--record-samples"]
    run += ["--python=same", "--set-commit-hash", commit]
    done = subprocess.run(run, cwd=folder, capture_output=True, text=True, env=environment)
    if done.returncode not in (0, 2):  # 2: some benchmark failed, as time_broken does
        raise RuntimeError(f"asv run failed ({done.returncode}): {done.stdout}{done.stderr}")
    return folder / "results"
