"""check classifies on workers or from its cache with the same verdicts as in-process."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from sphinxcontrib_trending.analysis import many as series
from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.ingest import loader
from tests.forks import forks_of


def _results(folder: Path) -> Path:
    """Three tests over 40 builds: one drops at the newest build, one two builds before
    (a change the newest build judges Normal, through the grouping of the run before)."""
    rng = random.Random(5)
    lines = []
    for build in range(1, 41):
        for test, drop_at in (("t.steady", None), ("t.new_drop", 40), ("t.late", 38)):
            level = 1e6 * (0.5 if drop_at is not None and build >= drop_at else 1.0)
            values = [level * (1 + rng.gauss(0, 0.005)) for _ in range(3)]
            time = f"2024-05-{1 + build // 2:02d}T{build % 2 * 12:02d}:00:00Z"
            lines.append(json.dumps({"test": test, "build": build, "time": time, "values": values}))
    path = folder / "results.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _verdicts(tmp_path: Path, name: str, *options: str) -> tuple[int, object]:
    target = tmp_path / f"{name}.json"
    results = _results(tmp_path)
    command = ["check", str(results), "--format", "jsonl", "--fail-on", "", "--json", str(target)]
    code = main([*command, *options])
    return code, json.loads(target.read_text())


def test_workers_and_a_warm_cache_give_the_in_process_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(series, "MIN_PARALLEL", 1)  # the fixture has few tests
    expected = _verdicts(tmp_path, "plain")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert _verdicts(tmp_path, "workers", "--workers", "2", *cache) == expected

    classified: list[str] = []
    real = series.classify_job
    monkeypatch.setattr(series, "classify_job", lambda job: classified.append(job) or real(job))
    assert _verdicts(tmp_path, "warm", *cache) == expected
    assert classified == []
    reasons = sorted(verdict["reason"] for verdict in expected[1]["verdicts"])  # type: ignore[index]
    assert reasons == ["Normal", "Normal", "Regression"]


def test_an_unreachable_scheduler_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sphinxcontrib_trending.engine import mapping

    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(mapping, "LOST_AFTER", 1.0)
    monkeypatch.setattr(series, "MIN_PARALLEL", 1)
    try:
        results = str(_results(tmp_path))
        code = main(["check", results, "--format", "jsonl", "--scheduler", "tcp://127.0.0.1:9"])
    finally:
        monkeypatch.undo()
    assert code == 2
    assert "cannot reach the Dask scheduler tcp://127.0.0.1:9" in capsys.readouterr().err


def test_verbose_shows_the_grouping_progress_as_log_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _verdicts(tmp_path, "verbose", "--verbose")
    err = capsys.readouterr().err
    assert "results: grouping histories: 1/3 (33%)" in err
    assert "results: grouping histories: 3/3 (100%)" in err


def test_workers_parse_new_inputs_on_forked_processes_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same results in four files: parsed on 2 forked workers, judged the same."""
    expected = _verdicts(tmp_path, "plain")
    lines = _results(tmp_path).read_text().splitlines()
    parts = tmp_path / "parts"
    parts.mkdir()
    for number in range(4):
        (parts / f"part{number}.jsonl").write_text("\n".join(lines[number::4]) + "\n")
    counts = forks_of(loader, monkeypatch)
    target = tmp_path / "parts.json"
    command = ["check", str(parts / "*.jsonl"), "--format", "jsonl", "--fail-on", ""]
    cache = ["--cache-dir", str(tmp_path / "cache")]
    code = main([*command, "--json", str(target), "--workers", "2", *cache])
    assert counts == [2]

    def judged(report: dict) -> list[tuple[str, str, float]]:  # the job names the file
        return sorted((v["key"], v["reason"], v["value"]) for v in report["verdicts"])

    assert code == expected[0]
    assert judged(json.loads(target.read_text())) == judged(expected[1])  # type: ignore[arg-type]


def test_workers_slow_to_load_the_compiled_search_are_told_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An install's first grouping compiles the search: ``check --workers`` says why it
    waits, and judges as it would have."""
    import time

    from sphinxcontrib_trending.engine import ready_workers

    expected = _verdicts(tmp_path, "plain")
    monkeypatch.setattr(series, "MIN_PARALLEL", 1)  # the fixture has few tests
    loading = series.load_grouping
    monkeypatch.setattr(series, "load_grouping", lambda: time.sleep(1.0) or loading())
    monkeypatch.setattr(ready_workers, "SLOW_SETUP", 0.1)
    capsys.readouterr()
    assert _verdicts(tmp_path, "slow", "--workers", "2") == expected
    err = capsys.readouterr().err
    assert err.count(f"sphinx-trending check: results: {series.SLOW_START_NOTE}") == 1
