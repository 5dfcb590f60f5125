"""The quick start's asv site, built from its own ``conf.py`` and ``index.rst``, on real asv output.

The two code blocks of the quick start's asv section are taken from
``docs/quickstart.rst`` as they are, so the page cannot drift from what
works.  asv runs the tiny project once; a second commit's results are that
file with another commit hash and date.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from sphinx.testing.util import SphinxTestApp

from tests.ingest.asv_project import MACHINE, run_asv

QUICKSTART = Path(__file__).resolve().parents[2] / "docs" / "quickstart.rst"
BLOCK = re.compile(r"\.\. code-block:: (\w+)\n\n((?:   .*\n|\n)+)")


def _asv_blocks() -> dict[str, str]:
    section = QUICKSTART.read_text().partition("An asv project's site\n")[2]
    return {
        language: "\n".join(line[3:] for line in body.splitlines()) + "\n"
        for language, body in BLOCK.findall(section)
    }


def test_the_conf_py_is_five_lines() -> None:
    conf = _asv_blocks()["python"]
    assert len(conf.strip().splitlines()) == 5


@pytest.fixture
def asv_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    results = run_asv(tmp_path / "asv-run")
    shutil.copytree(results, project / ".asv" / "results")
    (first,) = [p for p in (project / ".asv" / "results" / MACHINE).glob("*-*.json")]
    data = json.loads(first.read_text())
    data["commit_hash"] = "f" * 40
    data["date"] += 3_600_000
    (first.parent / f"ffffffff-{data['env_name']}.json").write_text(json.dumps(data))
    return project


def test_the_quick_start_s_asv_site_builds_from_the_results_folder(
    asv_project: Path, make_app: Callable[..., SphinxTestApp]
) -> None:
    blocks = _asv_blocks()
    docs = asv_project / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(blocks["python"])
    (docs / "index.rst").write_text(blocks["rst"])
    app = make_app("html", srcdir=docs)
    app.build()
    assert "[trending" not in app.warning.getvalue()
    page = (Path(app.outdir) / "index.html").read_text()
    assert "bench.Sum.time_sum(10, 'int') [existing-py" in page
    assert "bench.time_broken [existing-py" in page  # the failed-tests table
    assert "bench.peakmem_list" not in page  # another metric
