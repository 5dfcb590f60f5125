"""Parsing one input as a task for map_ordered: workers import it by name."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sphinxcontrib_trending.ingest.loader import Parsed, parse_input
from sphinxcontrib_trending.ingest.options import compile_options
from sphinxcontrib_trending.ingest.spec import SourceSpec


@dataclass(frozen=True, repr=False)
class ParseJob:
    """One local input file and the source spec it is read with."""

    path: str
    spec: SourceSpec

    def __repr__(self) -> str:
        return f"input {self.path}"


def parse_file(job: ParseJob) -> Parsed:
    """Every build and problem in one input, parsed where the task runs."""
    options = compile_options(job.spec)
    return parse_input(Path(job.path), job.path, job.path, options)
