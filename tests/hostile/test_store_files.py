"""A store folder is untrusted: planted rows or manifests are reported, never used."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sphinxcontrib_trending.ingest.store.manifest import MANIFEST_NAME
from tests.hostile.documents import load_here, rf7, rf7_test, write

Edit = Callable[[pa.Table], pa.Table]


def _set(column: str, value: object) -> Edit:
    def edit(table: pa.Table) -> pa.Table:
        index = table.schema.get_field_index(column)
        kind = table.schema.field(index).type
        return table.set_column(index, column, pa.array([value] * len(table), type=kind))

    return edit


EDITS: dict[str, Edit] = {
    "huge value": _set("values", [1e300]),
    "huge negative value": _set("values", [-1e300]),
    "NaN value": _set("values", [float("nan")]),
    "year 9999": _set("build_time", pa.scalar(253402300799000000, pa.timestamp("us", "UTC"))),
    "no origin": _set("origin", None),
    "no build index": _set("build_index", None),
}


def _replant(store: Path, edit: Edit) -> Path:
    """Rewrite the one data file with ``edit`` applied, and make the manifest agree."""
    (victim,) = store.rglob("*.parquet")
    table = edit(pq.read_table(victim))
    pq.write_table(table, victim)
    raw = victim.read_bytes()
    manifest_path = store / MANIFEST_NAME
    manifest = json.loads(manifest_path.read_text())
    for entry in manifest["inputs"].values():
        entry["files"] = [
            [path, len(raw), hashlib.sha256(raw).hexdigest()] for path, *_ in entry["files"]
        ]
    manifest_path.write_text(json.dumps(manifest))
    return victim


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_a_replanted_file_the_manifest_vouches_for_is_still_screened(
    tmp_path: Path, edit: Edit
) -> None:
    data = write(tmp_path / "data", "job__1__output.xml", rf7(rf7_test("t1") + rf7_test("t2")))
    cache = tmp_path / "cache"
    first = load_here(data, cache_dir=cache)
    victim = _replant(cache / "store", edit)
    again = load_here(data, cache_dir=cache)
    assert again.builds == first.builds
    assert again.parsed == [str(data)]
    (problem,) = again.problems
    assert problem.subtype == "cache" and problem.origin == str(victim)
    assert "corrupt or foreign store file, its input is parsed again" in problem.message


def test_a_manifest_naming_files_outside_the_store_is_refused(tmp_path: Path) -> None:
    """Nothing outside the store is read as data, and nothing outside is deleted."""
    data = write(tmp_path / "data", "job__1__output.xml", rf7())
    outside = write(tmp_path, "0123456789abcdef-" + "0" * 32 + ".parquet", b"precious")
    cache = tmp_path / "cache"
    first = load_here(data, cache_dir=cache)
    manifest_path = cache / "store" / MANIFEST_NAME
    manifest = json.loads(manifest_path.read_text())
    for entry in manifest["inputs"].values():
        entry["files"] = [[f"../../{outside.name}", 8, "0" * 64]]
    manifest_path.write_text(json.dumps(manifest))
    again = load_here(data, cache_dir=cache)
    assert again.builds == first.builds and again.parsed == [str(data)]
    (problem,) = again.problems
    assert problem.origin == str(manifest_path) and "not a data file name" in problem.message
    assert outside.read_bytes() == b"precious"
