"""``**`` over symbolic-link loops: each real directory is followed once."""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest

from sphinxcontrib_trending.ingest.globbing import expand
from tests.hostile.documents import load_here, rf7, write


def _tree(root: Path) -> None:
    write(root, "a/job__1__output.xml", rf7())
    write(root, "a/b/job__2__output.xml", rf7())
    (root / "a" / "b" / "up").symlink_to(root / "a")  # a loop
    (root / "a" / "b" / "top").symlink_to(root)  # a second loop
    (root / "a" / "elsewhere").symlink_to(root / "outside")
    write(root, "outside/job__4__output.xml", rf7())


@pytest.mark.parametrize("tail", ["**", "**/*.xml", "**/job__*", "a/**/b"])
def test_two_symlink_loops_parse_each_file_once(tmp_path: Path, tail: str) -> None:
    _tree(tmp_path)
    dataset = load_here(f"{tmp_path}/{tail}")
    builds = sorted(build.build for build in dataset.builds)
    assert builds == (["2"] if tail == "a/**/b" else ["1", "2", "4"])
    assert len(dataset.files) == len({os.path.realpath(f) for f in dataset.files})
    assert not [p for p in dataset.problems if p.subtype == "duplicate"]


def test_without_links_the_matches_are_those_of_glob(tmp_path: Path) -> None:
    for name in ("x/1.xml", "x/y/2.xml", "x/y/z/3.csv", "x/.h/4.xml", "5.xml"):
        write(tmp_path, name, "")
    for tail in ("**", "**/*.xml", "x/**", "x/**/*.xml", "**/y/**", "**/.h/*"):
        pattern = f"{tmp_path}/{tail}"
        ours = {os.path.normpath(p) for p in expand(pattern)}
        theirs = {os.path.normpath(p) for p in glob.glob(pattern, recursive=True)}
        assert ours == theirs, tail
