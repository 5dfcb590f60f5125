"""Builds read from a store name the data files they came from; the site tells new ones apart."""

from __future__ import annotations

import shutil
from pathlib import Path

from sphinxcontrib_trending.analysis.history import history_key
from sphinxcontrib_trending.analysis.touched_series import provenance_of, touched_series
from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.ingest import SourceSpec, load
from sphinxcontrib_trending.ingest.store.stored_tests import StoredTests
from tests.ingest.conftest import RF7_DAILY


def _stored(store: Path, inputs: Path) -> list:
    assert main(["ingest", str(inputs), "--store", str(store), "--quiet"]) == 0
    return load(SourceSpec(paths=(str(store),), format="parquet")).builds


def test_every_build_of_a_store_names_the_files_it_was_read_from(ours: Path) -> None:
    builds = load(SourceSpec(paths=(str(ours),), format="parquet")).builds
    on_disk = {path.name for path in ours.rglob("*.parquet")}
    for build in builds:
        assert type(build.tests) is StoredTests
        assert build.tests.provenance and set(build.tests.provenance) <= on_disk
    provenance = provenance_of(builds)
    assert provenance is not None and {n for names in provenance for n in names} == on_disk


def test_builds_parsed_without_a_store_have_no_provenance() -> None:
    assert provenance_of(load(SourceSpec(paths=(str(RF7_DAILY),))).builds) is None


def test_the_series_of_an_input_added_since_are_the_touched_ones(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    shutil.copytree(RF7_DAILY, inputs)
    *_, added = sorted(inputs.glob("*.xml.gz"))
    added.rename(tmp_path / added.name)
    before = provenance_of(_stored(tmp_path / "store", inputs))
    (tmp_path / added.name).rename(added)
    builds = _stored(tmp_path / "store", inputs)

    touched = touched_series(builds, before, provenance_of(builds))

    assert touched is not None
    new = [build for build in builds if build.tests.provenance not in before]
    assert len(new) == 1 and touched.builds == new
    assert touched.keys == {history_key(new[0].testbed, test.test_id) for test in new[0].tests}
    assert touched_series(builds, None, provenance_of(builds)) is None
    # an input read before and not now: anything may have changed
    assert touched_series(builds[1:], provenance_of(builds), provenance_of(builds[1:])) is None
