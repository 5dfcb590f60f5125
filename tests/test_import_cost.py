"""Every sphinx-build and every CLI call imports the extension: keep its start light.

scipy.stats (half a second), matplotlib and Dask's distributed serve a few
directives and options only, prometheus_client (a quarter second) telemetry,
numba (a second with its compiled code) the exact search when it runs;
they are imported where used.  A module-level
import of one of them anywhere on the extension's import path would add its
cost to every build, a build with nothing to do included.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"

HEAVY = ("scipy", "matplotlib", "distributed", "prometheus_client", "numba")


def loaded_after(statement: str) -> set[str]:
    """The modules a fresh interpreter has loaded once it ran ``statement`` (which may print)."""
    probe = f"import sys\n{statement}\nprint('\\n' + ' '.join(sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(done.stdout.splitlines()[-1].split())


@pytest.mark.parametrize(
    "module", ["sphinxcontrib_trending.sphinxext", "sphinxcontrib_trending.cli"]
)
def test_starting_imports_no_heavy_library(module: str) -> None:
    assert loaded_after(f"import {module}") & set(HEAVY) == set()


@pytest.mark.parametrize(
    "statement",
    [
        "import sphinxcontrib_trending.ingest.options",
        "from sphinxcontrib_trending.ingest import SourceSpec, SpecError, model",
    ],
)
def test_a_source_spec_loads_no_format_and_no_store(statement: str) -> None:
    """conf.py's checks and the command line's options need the names of formats only.

    A format's module (``parquet`` brings pyarrow and fsspec) and the loader
    are imported when a source of it is read.
    """
    loaded = loaded_after(statement)
    formats = {name for name in loaded if name.startswith("sphinxcontrib_trending.ingest.formats.")}
    assert formats == set()
    assert loaded & {"pyarrow", "fsspec", "sphinxcontrib_trending.ingest.loader"} == set()


@pytest.mark.parametrize(
    ("argv", "needed"),
    [
        (["--help"], set()),
        (["check", "--help"], {"check"}),
        (["export", "--help"], {"export"}),
    ],
)
def test_the_command_line_imports_only_the_command_it_runs(
    argv: list[str], needed: set[str]
) -> None:
    """``init`` brings Sphinx; a CI job running ``check`` must not wait for it."""
    loaded = loaded_after(
        f"from sphinxcontrib_trending.cli import main\ntry:\n    main({argv!r})\n"
        "except SystemExit:\n    pass"
    )
    commands = {"init", "export", "ingest", "check"}
    assert {name for name in commands if f"sphinxcontrib_trending.cli.{name}" in loaded} == needed
    assert "sphinx" not in loaded


def test_ingesting_local_archives_loads_no_http_client_and_no_full_schema_validator(
    tmp_path: Path,
) -> None:
    """``sphinx-trending ingest`` runs in every CI job; requests (for URLs) and
    jsonschema (for the message of an invalid CSIT JSON document) took an
    eighth of a second of each run that needed neither."""
    archives = FIXTURES / "rf7" / "daily"
    argv = ["ingest", str(archives), "--store", str(tmp_path / "store"), "--quiet"]
    loaded = loaded_after(
        f"from sphinxcontrib_trending.cli import main\nassert main({argv!r}) == 0"
    )
    assert "sphinxcontrib_trending.ingest.loader" in loaded  # it did ingest
    assert any((tmp_path / "store").iterdir())
    assert loaded & {"requests", "urllib3", "jsonschema"} == set()
