"""Input formats are a registry: one declaration is all the loader needs."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from sphinxcontrib_trending.ingest import SourceSpec, SpecError, load, registry, resolve
from sphinxcontrib_trending.ingest.formats import InputFormat, Reading
from sphinxcontrib_trending.ingest.model import Build, Measurement, Problem, TestResult
from sphinxcontrib_trending.ingest.spec import FORMATS


def _read_lines(reading: Reading) -> tuple[list[Build], list[Problem]]:
    """A toy format: each line ``test value`` is one test of one build."""
    tests = []
    for line in reading.stream.read().decode().splitlines():
        name, value = line.split()
        measurement = Measurement("score", "pt", (float(value),))
        tests.append(TestResult(name, name, "", (), "PASS", None, "", (measurement,)))
    moment = datetime(2024, 5, 1, tzinfo=timezone.utc)
    return [Build("toy", reading.names[0], moment, None, None, reading.where, tuple(tests))], []


FORMAT = InputFormat("toy", re.compile(r"\.toy$"), _read_lines)
"""This module declares the toy format, as a format module does: the registry imports it."""


def test_the_known_formats_are_the_registry_s() -> None:
    assert (
        FORMATS
        == registry.format_names()
        == (
            "robot",
            "csv",
            "jsonl",
            "csit-json",
            "parquet",
            "asv",
            "pytest-benchmark",
            "google-benchmark",
        )
    )
    assert registry.DEFAULT_FORMAT == "robot" == SourceSpec(paths=()).format
    assert all(registry.input_format(name).name == name for name in FORMATS)


def test_a_registered_format_is_resolved_loaded_and_validated(monkeypatch, tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="format 'toy' is not one of robot, csv, jsonl"):
        resolve(SourceSpec(paths=(str(tmp_path),), format="toy"))
    monkeypatch.setitem(registry._FORMATS, "toy", __name__)
    (tmp_path / "a.toy").write_text("t1 1.5\nt2 2.5\n")
    (tmp_path / "notes.txt").write_text("not a result")
    spec = SourceSpec(paths=(str(tmp_path),), format="toy")
    assert resolve(spec) == [str(tmp_path / "a.toy")]
    dataset = load(spec)
    assert dataset.problems == []
    (build,) = dataset.builds
    assert [(t.test_id, t.measurement("score").values) for t in build.tests] == [
        ("t1", (1.5,)),
        ("t2", (2.5,)),
    ]


def test_documents_are_recognised_by_name_after_compression_suffixes() -> None:
    robot = registry.input_format("robot")
    assert robot.is_document("a/b/job__1__output_info.xml.gz")
    assert not robot.is_document("log.html")
    assert registry.input_format("jsonl").is_document("x\\results.ndjson.xz")
    assert not registry.input_format("csv").is_document("results.csv.zip")
