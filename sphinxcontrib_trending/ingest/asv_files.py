"""The files of an airspeed velocity (asv) results folder, decoded as asv writes them.

asv keeps ``benchmarks.json`` (what each benchmark is now: type, unit,
parameters, version) at the folder's root, one folder per machine with its
``machine.json``, and one file per (commit, environment) with that run's
results.  asv 0.5 and later write results as columns (``result_columns``,
file version 2); asv 0.4 wrote one object per benchmark (version 1), and
older files a bare number.  Both come out here as the same
:class:`BenchmarkRun`, so what asv shows is decided in one place
(:mod:`~sphinxcontrib_trending.ingest.asv_publish`).  Anything malformed
raises :class:`AsvFileError` with a message fit for the user; the caller
names the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESULTS_VERSION = 2
"""The newest results file version asv writes (``Results.api_version``)."""

BENCHMARKS_VERSION = 2
"""The newest ``benchmarks.json`` version asv writes (``Benchmarks.api_version``)."""

MACHINE_VERSION = 1
"""The newest ``machine.json`` version asv writes (``Machine.api_version``)."""

_METRICS = {"time": "time", "memory": "mem", "peakmemory": "peakmem", "track": "track"}
"""asv's benchmark type -> the metric: the name prefix its benchmarks carry (``peakmem_``)."""


class AsvFileError(ValueError):
    """The file cannot be used at all."""


@dataclass(frozen=True)
class Benchmark:
    """One entry of ``benchmarks.json``: the benchmark as it is now."""

    name: str
    metric: str
    unit: str
    params: tuple[tuple[str, ...], ...]
    version: str | None


@dataclass(frozen=True)
class BenchmarkRun:
    """One benchmark's results in one results file, one slot per parameter combination.

    ``values`` is None when the whole benchmark failed (a build failure);
    a slot is None for a failed combination and NaN for a skipped one.
    ``samples`` are the raw samples, where asv kept them (``--record-samples``).
    """

    values: tuple[float | None, ...] | None
    params: tuple[tuple[str, ...], ...]
    version: str | None
    samples: tuple[tuple[float, ...] | None, ...] | None
    started_at: float | None


@dataclass(frozen=True)
class ResultsFile:
    """One results file: a run of every benchmark for one commit in one environment."""

    commit: str
    env: str
    date: float
    machine: str
    python: str
    runs: dict[str, BenchmarkRun]


def load_json(path: Path, limit: int) -> Any:
    """The file's JSON (asv writes ``NaN`` for skipped results: it is accepted).

    A file over ``limit`` bytes (the source's ``max_expanded_bytes``) is not
    read: asv's files are kilobytes, and a planted one must not fill memory.
    """
    size = path.stat().st_size
    if size > limit:
        raise AsvFileError(f"{size:,} bytes is over max_expanded_bytes ({limit:,}); left out")
    try:
        with path.open(encoding="utf-8") as stream:
            return json.load(stream)
    except RecursionError:
        raise AsvFileError("not JSON: nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise AsvFileError(f"not JSON: {error}") from None


def _object(data: Any, what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise AsvFileError(f"not an asv {what} file: a JSON object is expected")
    return data


def _version(data: dict[str, Any], newest: int, what: str) -> int:
    version = data.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int):
        raise AsvFileError(f"not an asv {what} file: version {version!r} is not a number")
    if version > newest:
        raise AsvFileError(
            f"asv {what} file version {version} is newer than this reader knows "
            f"(up to {newest}); left out"
        )
    return version


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise AsvFileError(f"{what} {value!r} is not a text")
    return value


def _param_lists(value: Any, what: str) -> tuple[tuple[str, ...], ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(
        isinstance(values, list) and all(isinstance(item, str) for item in values)
        for values in value
    ):
        raise AsvFileError(f"{what}: parameters are not lists of values")
    return tuple(tuple(values) for values in value)


def read_benchmarks(path: Path, limit: int) -> dict[str, Benchmark]:
    """``benchmarks.json``: every benchmark asv knows now, by name."""
    data = _object(load_json(path, limit), "benchmarks.json")
    _version(data, BENCHMARKS_VERSION, "benchmarks.json")
    found = {}
    for name, entry in data.items():
        if name == "version":
            continue
        if not isinstance(entry, dict):
            raise AsvFileError(f"benchmark {name!r}: an object is expected")
        kind = entry.get("type")
        if not isinstance(kind, str):
            raise AsvFileError(f"benchmark {name!r}: no type")
        version = entry.get("version")
        found[name] = Benchmark(
            name=name,
            metric=_METRICS.get(kind, kind),
            unit=str(entry.get("unit") or ""),
            params=_param_lists(entry.get("params"), f"benchmark {name!r}"),
            version=None if version is None else str(version),
        )
    return found


def read_machine(path: Path, limit: int) -> str:
    """The machine a ``machine.json`` describes (asv reads no folder without one)."""
    data = _object(load_json(path, limit), "machine.json")
    _version(data, MACHINE_VERSION, "machine.json")
    return _text(data.get("machine"), "machine name")


def read_results(path: Path, limit: int) -> ResultsFile:
    """One results file, in either layout."""
    data = _object(load_json(path, limit), "results")
    version = _version(data, RESULTS_VERSION, "results")
    params = data.get("params")
    if not isinstance(params, dict):
        raise AsvFileError("not an asv results file: no params")
    date = data.get("date")
    if isinstance(date, bool) or not isinstance(date, int | float):
        raise AsvFileError(f"date {date!r} is not a number")
    results = data.get("results")
    if not isinstance(results, dict):
        raise AsvFileError("not an asv results file: no results")
    runs = _columns(data, results) if version == 2 else _objects(data, results)
    return ResultsFile(
        commit=_text(data.get("commit_hash"), "commit hash"),
        env=_env_name(data, path),
        date=float(date),
        machine=_text(params.get("machine"), "machine name"),
        python=str(data.get("python") or ""),
        runs=runs,
    )


def _env_name(data: dict[str, Any], path: Path) -> str:
    """The environment: as the file says (asv 0.4 and later), else from its name.

    asv names a results file ``<commit[:8]>-<environment>.json``; files
    written before asv kept ``env_name`` are told apart by that name alone.
    """
    name = data.get("env_name")
    if isinstance(name, str) and name:
        return name
    stem = path.stem
    return stem.partition("-")[2] or stem


def _numbers(value: Any, what: str) -> tuple[float | None, ...]:
    if not isinstance(value, list):
        value = [value]
    found: list[float | None] = []
    for item in value:
        if item is None:
            found.append(None)
        elif isinstance(item, int | float) and not isinstance(item, bool):
            found.append(float(item))
        else:
            raise AsvFileError(f"{what}: {item!r} is not a number")
    return tuple(found)


def _samples(value: Any, what: str) -> tuple[tuple[float, ...] | None, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise AsvFileError(f"{what}: samples are not a list")
    found: list[tuple[float, ...] | None] = []
    for item in value:
        if item is None:
            found.append(None)
            continue
        numbers = _numbers(item, what)
        if any(number is None for number in numbers):
            raise AsvFileError(f"{what}: a sample is not a number")
        found.append(tuple(n for n in numbers if n is not None))
    return tuple(found)


def _run(
    name: str,
    result: Any,
    params: Any,
    version: Any,
    samples: Any,
    started_at: Any,
) -> BenchmarkRun:
    what = f"benchmark {name!r}"
    return BenchmarkRun(
        values=None if result is None else _numbers(result, what),
        params=_param_lists(params, what),
        version=None if version is None else str(version),
        samples=_samples(samples, what),
        started_at=(
            float(started_at)
            if isinstance(started_at, int | float) and not isinstance(started_at, bool)
            else None
        ),
    )


def _columns(data: dict[str, Any], results: dict[str, Any]) -> dict[str, BenchmarkRun]:
    """asv 0.5 and later: each benchmark a row of ``result_columns``."""
    columns = data.get("result_columns")
    if not isinstance(columns, list) or "result" not in columns:
        raise AsvFileError("not an asv results file: no result_columns")
    runs = {}
    for name, row in results.items():
        if not isinstance(row, list):
            raise AsvFileError(f"benchmark {name!r}: a list of columns is expected")
        cells = dict(zip(columns, row, strict=False))
        runs[name] = _run(
            name,
            cells.get("result"),
            cells.get("params"),
            cells.get("version"),
            cells.get("samples"),
            cells.get("started_at"),
        )
    return runs


def _objects(data: dict[str, Any], results: dict[str, Any]) -> dict[str, BenchmarkRun]:
    """asv 0.4 and older: an object per benchmark (or a bare number), versions beside."""
    versions = data.get("benchmark_version")
    started = data.get("started_at")
    versions = versions if isinstance(versions, dict) else {}
    started = started if isinstance(started, dict) else {}
    runs = {}
    for name, entry in results.items():
        cell = entry if isinstance(entry, dict) else {"result": entry}
        runs[name] = _run(
            name,
            cell.get("result"),
            cell.get("params"),
            versions.get(name),
            cell.get("samples"),
            started.get(name),
        )
    return runs
