"""Histories kept between builds: a new build gathers only its own runs, and nothing changes."""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc as ipc
import pytest

from sphinxcontrib_trending.analysis import history as history_module
from sphinxcontrib_trending.analysis import kept_histories
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.kept_histories import KeptHistories
from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.ingest import SourceSpec, load
from sphinxcontrib_trending.ingest.dimensions import rules_for
from sphinxcontrib_trending.ingest.model import Build, Measurement, TestResult
from tests.ingest.conftest import RF7_DAILY
from tests.ingest.test_store_rows import T0

METRIC = "mrr"
RULES = rules_for()


@pytest.fixture
def inputs(tmp_path: Path) -> list[Path]:
    """The daily archives, oldest first, none of them in the store yet."""
    folder = tmp_path / "inputs"
    folder.mkdir()
    return [Path(shutil.copy(path, folder)) for path in sorted(RF7_DAILY.glob("*.xml.gz"))]


def _stored(tmp_path: Path, inputs: list[Path]) -> list[Build]:
    """``inputs`` ingested into the test's store, and the store read as a site reads it."""
    store = tmp_path / "store"
    assert main(["ingest", *map(str, inputs), "--store", str(store), "--quiet"]) == 0
    return load(SourceSpec(paths=(str(store),), format="parquet"), passed_messages=False).builds


def _fields(history: history_module.TestHistory) -> tuple[object, ...]:
    """Everything a view reads of a history: its names, dimensions and every run whole."""
    return (
        history.key,
        history.test_id,
        history.name,
        history.suite,
        history.tags,
        history.testbed,
        history.thread_core,
        history.unit,
        history.dimensions,
        tuple(history.runs),
    )


def _same(found: list[history_module.TestHistory], builds: list[Build]) -> None:
    assert [_fields(history) for history in found] == [
        _fields(history) for history in histories(builds, METRIC, rules=RULES)
    ]


def _kept(folder: Path, heard: list[str] | None = None) -> KeptHistories:
    return KeptHistories(folder, (heard if heard is not None else []).append)


def _kept_all(tmp_path: Path, inputs: list[Path]) -> tuple[Path, list[Build]]:
    """Every input stored and its histories kept: the kept folder and the builds."""
    folder = tmp_path / "kept"
    builds = _stored(tmp_path, inputs)
    _kept(folder).histories(builds, METRIC, RULES)
    return folder, builds


def _state(folder: Path) -> dict[str, object]:
    (path,) = folder.glob("*.json")
    return json.loads(path.read_text())


def test_a_new_build_reads_only_its_own_runs_and_the_histories_are_the_same(
    tmp_path: Path, inputs: list[Path], gathered: list[int]
) -> None:
    folder = tmp_path / "kept"
    before = _stored(tmp_path, inputs[:-1])
    _same(_kept(folder).histories(before, METRIC, RULES), before)
    assert gathered == [len(before), len(before)]  # kept, then the plain oracle

    builds = _stored(tmp_path, inputs)
    gathered.clear()
    _same(_kept(folder).histories(builds, METRIC, RULES), builds)

    assert len(builds) == len(before) + 1 and gathered[0] == 1, "only the new build is read"
    assert len(_state(folder)["segments"]) == 2  # type: ignore[arg-type]
    gathered.clear()
    _same(_kept(folder).histories(builds, METRIC, RULES), builds)
    assert gathered[0] == 0, "nothing new: nothing read"


def test_a_kept_build_that_changed_or_went_means_every_build_is_read_again(
    tmp_path: Path, inputs: list[Path], gathered: list[int]
) -> None:
    folder, builds = _kept_all(tmp_path, inputs)
    without_first = builds[1:]
    gathered.clear()

    _same(_kept(folder).histories(without_first, METRIC, RULES), without_first)

    assert gathered[0] == len(without_first)
    assert len(_state(folder)["segments"]) == 1  # type: ignore[arg-type]
    assert len(list(folder.glob("*.arrow"))) == 1, "the old gathering's runs are gone"


def test_an_unreadable_kept_gathering_is_reported_by_name_and_gathered_again(
    tmp_path: Path, inputs: list[Path], gathered: list[int]
) -> None:
    folder, builds = _kept_all(tmp_path, inputs)
    (segment,) = folder.glob("*.arrow")
    segment.write_bytes(b"not arrow")
    heard: list[str] = []
    gathered.clear()

    _same(_kept(folder, heard).histories(builds, METRIC, RULES), builds)

    assert gathered[0] == len(builds)
    (message,) = heard
    assert str(next(folder.glob("*.json"))) in message and "gathered again" in message
    heard.clear()
    _same(_kept(folder, heard).histories(builds, METRIC, RULES), builds)
    assert heard == [], "the damaged gathering was replaced"


def test_many_segments_are_joined_into_one(
    tmp_path: Path, inputs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kept_histories, "MAX_SEGMENTS", 2)
    folder = tmp_path / "kept"
    counts = []
    for last in range(len(inputs) - 3, len(inputs) + 1):
        builds = _stored(tmp_path, inputs[:last])
        _same(_kept(folder).histories(builds, METRIC, RULES), builds)
        counts.append(len(_state(folder)["segments"]))  # type: ignore[arg-type]
    assert counts == [1, 2, 1, 2]
    assert len(list(folder.glob("*.arrow"))) == 2


def test_builds_not_read_from_a_store_and_latency_metrics_are_not_kept(
    tmp_path: Path, inputs: list[Path]
) -> None:
    folder = tmp_path / "kept"
    parsed = load(SourceSpec(paths=tuple(map(str, inputs)))).builds
    _same(_kept(folder).histories(parsed, METRIC, RULES), parsed)
    stored = _stored(tmp_path, inputs)
    _kept(folder).histories(stored, "latency_pdr50_forward_avg", RULES)
    assert not folder.exists()


def test_a_reader_that_is_not_the_writer_reads_but_never_writes(
    tmp_path: Path, inputs: list[Path]
) -> None:
    folder = tmp_path / "kept"
    builds = _stored(tmp_path, inputs)
    reader = KeptHistories(folder, [].append, writer=False)
    _same(reader.histories(builds, METRIC, RULES), builds)
    assert not folder.exists()


def test_a_history_takes_the_unit_of_its_newest_run_also_among_runs_of_one_batch() -> None:
    """A kept batch holds many runs of each history (a build's, a test twice in it):
    the last of them that measured the metric gives the unit, as build by build."""

    def run(unit: str) -> TestResult:
        return TestResult(
            "t.one", "one", "s", (), "PASS", T0, "", (Measurement(METRIC, unit, (1.0,)),)
        )

    build = Build("job", "1", T0, None, "tb", "o", (run("pps"), run("bps")))
    later = Build("job", "2", T0 + timedelta(days=1), None, "tb", "o", (run("cps"), run("Mpps")))
    assert [history.unit for history in histories([build], METRIC)] == ["bps"]
    assert [history.unit for history in histories([build, later], METRIC)] == ["Mpps"]


def test_a_segment_of_many_record_batches_reads_back_batch_by_batch(
    tmp_path: Path, inputs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each record batch is a batch of runs of its own (its columns the mapped file's,
    its coded texts one list per segment): the histories are the same."""
    monkeypatch.setattr(kept_histories, "CHUNK_ROWS", 7)
    folder = tmp_path / "kept"
    before = _stored(tmp_path, inputs[:-1])
    _kept(folder).histories(before, METRIC, RULES)
    (segment,) = folder.glob("*.arrow")
    assert ipc.open_file(pa.memory_map(str(segment))).num_record_batches > 1
    builds = _stored(tmp_path, inputs)
    _same(_kept(folder).histories(builds, METRIC, RULES), builds)
    _same(_kept(folder).histories(builds, METRIC, RULES), builds)
