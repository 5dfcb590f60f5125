"""Small generated inputs the hostile-input tests build their cases from."""

from __future__ import annotations

from pathlib import Path

from sphinxcontrib_trending.ingest import Dataset, SourceSpec, load

MRR = "Maximum Receive Rate trial results in packets per second: [10.0, 11.0]"


def rf7_test(name: str, message: str = MRR, status: str = "PASS") -> str:
    return (
        f'<test name="{name}"><status status="{status}" start="2024-05-01T01:00:00.000000"'
        f' elapsed="1.0">{message}</status></test>'
    )


def rf7(
    tests: str = "",
    *,
    start: str = "2024-05-01T01:00:00.000000",
    elapsed: str = "9.0",
    prolog: str = '<?xml version="1.0" encoding="UTF-8"?>\n',
) -> str:
    """An RF 7 output.xml; ``tests`` defaults to one passing MRR test."""
    return (
        f'{prolog}<robot generated="2024-05-01T00:00:00.000000">'
        f'<suite name="S">{tests or rf7_test("t1")}'
        f'<status status="PASS" start="{start}" elapsed="{elapsed}"/></suite></robot>\n'
    )


def write(folder: Path, name: str, data: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def load_here(*paths: Path | str, cache_dir: Path | None = None, **options: object) -> Dataset:
    spec = SourceSpec(paths=tuple(str(p) for p in paths), **options)  # type: ignore[arg-type]
    return load(spec, cache_dir=cache_dir)


def messages(dataset: Dataset) -> str:
    return "\n".join(str(problem) for problem in dataset.problems)
