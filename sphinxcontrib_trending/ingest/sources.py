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
from sphinxcontrib_trending.ingest.downloaded import is_url
from sphinxcontrib_trending.ingest.formats import InputFormat
from sphinxcontrib_trending.ingest.globbing import expand
from sphinxcontrib_trending.ingest.model import Problem
from sphinxcontrib_trending.ingest.registry import format_names, input_format
from sphinxcontrib_trending.ingest.sniffing import set_format_hint
from sphinxcontrib_trending.ingest.spec import SourceSpec


def _is_input(fmt: InputFormat, name: str) -> bool:
    return fmt.is_document(name) or bool(ARCHIVE_SUFFIX.search(name))


def _walk(folder: Path, fmt: InputFormat) -> list[str]:
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        found.extend(os.path.join(root, name) for name in sorted(files) if _is_input(fmt, name))
    return found


def _unmatched(entry: str, folders: list[Path], fmt: InputFormat) -> Problem:
    """Nothing of ``fmt`` in the folders: say so, and which format their files are in."""
    names = [
        name for folder in folders for _root, _dirs, files in os.walk(folder) for name in files
    ]
    message = f"matches no {fmt.name} input files"
    for other in format_names():
        if other != fmt.name and any(input_format(other).is_document(name) for name in names):
            message += f", but holds {other} files: {set_format_hint(other)}"
            break
    return Problem(entry, message, "source")


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
        folders: list[Path] = []
        if glob.has_magic(entry):
            matches = [Path(match) for match in expand(str(path))]
            found = [str(m) for m in matches if m.is_file()]
            folders = [m for m in matches if m.is_dir()]
        elif path.is_dir():
            found, folders = [], [path]
        elif path.is_file():
            found = [str(path)]
        else:
            problems.append(Problem(entry, "no such file or directory", "source"))
            continue
        for folder in folders:
            found.extend(_walk(folder, fmt))
        if not found:
            problems.append(_unmatched(entry, folders, fmt))
        inputs.update(os.path.abspath(name) for name in found)
    return sorted(inputs), problems
