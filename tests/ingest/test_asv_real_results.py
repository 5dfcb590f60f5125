"""The held-out check: four public projects' asv results, read value by value against asv.

The asv source must yield exactly what asv's own loader says ``asv publish``
shows of each results file (see :mod:`tests.ingest.asv_expected`), test for
test and number for number.  The FlowKit tree is in asv's old layout (file
version 1): asv reads it only after ``asv update`` rewrites it, so asv reads
an updated copy while the reader reads the original files.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from sphinxcontrib_trending.ingest import SourceSpec, load
from tests.ingest.asv_expected import as_asv_reads_it, what_asv_shows, what_we_read
from tests.shared_data import SHARED_DATA

PROJECTS = ("django-asv", "blas-benchmarks", "flowkit-benchmarks", "parcels-benchmarks")


def _unpacked(project: str, into: Path) -> Path:
    with tarfile.open(SHARED_DATA / "asv_results" / f"{project}.tar.xz") as archive:
        archive.extractall(into, filter="data")
    return into / project / "results"


@pytest.mark.shared_data("asv_results")
@pytest.mark.parametrize("project", PROJECTS)
def test_every_result_asv_would_publish_and_nothing_else(project: str, tmp_path: Path) -> None:
    results = _unpacked(project, tmp_path)
    expected = what_asv_shows(as_asv_reads_it(results, tmp_path))
    dataset = load(SourceSpec(paths=(str(results),), format="asv", metric="time"))
    assert expected, "asv shows nothing: the check would be empty"
    assert what_we_read(dataset) == expected
    assert all("does not list" in problem.message for problem in dataset.problems)
