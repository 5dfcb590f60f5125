"""What an input format is: one module per format declares one :class:`InputFormat`.

A format module (``robot_output``, ``csv_table``, ``json_lines``, ...) says
what the format is called, which file and archive-member names hold its
documents, and how one document becomes builds.  It is listed once in
:mod:`~sphinxcontrib_trending.ingest.registry`, and everything else (source
resolution, the loader, settings, the command line) asks the registry, so a
new format touches no other module.

Format modules import only the parsing layer below them, never the
registry, spec or options; the options a reader gets are a
:class:`~sphinxcontrib_trending.ingest.read_options.ReadOptions`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from sphinxcontrib_trending.ingest.archives import COMPRESSION_SUFFIX
from sphinxcontrib_trending.ingest.model import Build, Problem
from sphinxcontrib_trending.ingest.read_options import ReadOptions
from sphinxcontrib_trending.ingest.replay import Replay


@dataclass(frozen=True)
class Reading:
    """One document handed to a format's reader.

    ``where`` names it in problems (``archive.tar!member``); ``names`` are
    the names a build pattern is tried on, the member's before the input's.
    """

    stream: Replay
    where: str
    names: tuple[str, ...]
    options: ReadOptions


Reader = Callable[[Reading], tuple[list[Build], list[Problem]]]

StoreReader = Callable[
    [str, "ReadOptions", bool, Path | None], tuple[list[Build], list[Problem], list[str]]
]
"""Reads one store location whole: its builds, problems and the files it read.

The flag is ``passed_messages`` (False: passed tests' messages left empty);
the path, where the read may keep files' decoded rows between reads (None:
nowhere).
"""


@dataclass(frozen=True)
class InputFormat:
    """One input format, as the rest of ingest sees it.

    ``documents`` matches the base name of a results document (after any
    ``.gz``/``.xz``/``.bz2`` suffix is taken off); it decides which files of
    a directory and which archive members are read, so ``log.html`` beside
    ``output.xml`` is left alone.  Explicitly named files are read whatever
    their name.  ``own_options`` are the source options only this format
    reads; setting one on a source of another format is an error.
    ``merges_builds`` says one document holds one test, not one build: the
    loader joins documents of the same job and build instead of reporting
    them as duplicates.  A format with ``store`` and no ``read`` (``parquet``)
    reads each of a source's paths as a whole dataset instead of its files
    one by one.  ``sniff`` is for a format whose document names are generic
    (``*.json``): given a file's first bytes, is it this format's?  The
    command line asks it before it suggests the format for a file.
    """

    name: str
    documents: re.Pattern[str]
    read: Reader | None
    own_options: frozenset[str] = frozenset()
    merges_builds: bool = False
    store: StoreReader | None = None
    sniff: Callable[[bytes], bool] | None = None

    def is_document(self, name: str) -> bool:
        """Is this file or member name a results document of this format?"""
        base = PurePosixPath(name.replace("\\", "/")).name
        return bool(self.documents.search(COMPRESSION_SUFFIX.sub("", base)))
