"""From the entries of a source to the concrete inputs it matches now.

An entry is a file, a directory (searched recursively), a glob pattern
(``**`` spans folders) or an http(s) URL.  Explicit files are always read;
files found in directories, and archive members, must look like results of
the source's format, so ``log.html`` beside ``output.xml`` is left alone.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

from sphinxcontrib_trending.ingest.archives import ARCHIVE_SUFFIX
from sphinxcontrib_trending.ingest.download import is_url
from sphinxcontrib_trending.ingest.formats import InputFormat
from sphinxcontrib_trending.ingest.globbing import expand
from sphinxcontrib_trending.ingest.model import Problem
from sphinxcontrib_trending.ingest.registry import input_format
from sphinxcontrib_trending.ingest.spec import SourceSpec


def _is_input(fmt: InputFormat, name: str) -> bool:
    return fmt.is_document(name) or bool(ARCHIVE_SUFFIX.search(name))


def _walk(folder: Path, fmt: InputFormat) -> list[str]:
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        found.extend(os.path.join(root, name) for name in sorted(files) if _is_input(fmt, name))
    return found


def resolve_entries(spec: SourceSpec) -> tuple[list[str], list[Problem]]:
    """Inputs (absolute paths and URLs, sorted, unique) and the entries that matched none."""
    inputs: set[str] = set()
    problems: list[Problem] = []
    fmt = input_format(spec.format)
    for entry in spec.paths:
        if is_url(entry):
            inputs.add(entry)
            continue
        path = Path(entry).expanduser()
        if glob.has_magic(entry):
            matches = [Path(match) for match in expand(str(path))]
            found = [str(m) for m in matches if m.is_file()]
            for folder in (m for m in matches if m.is_dir()):
                found.extend(_walk(folder, fmt))
        elif path.is_dir():
            found = _walk(path, fmt)
        elif path.is_file():
            found = [str(path)]
        else:
            problems.append(Problem(entry, "no such file or directory", "source"))
            continue
        if not found:
            problems.append(Problem(entry, f"matches no {spec.format} input files", "source"))
        inputs.update(os.path.abspath(name) for name in found)
    return sorted(inputs), problems
