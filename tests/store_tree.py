"""A results store's files and their bytes, to compare two stores byte for byte."""

from __future__ import annotations

from pathlib import Path


def store_tree(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` by its relative path, but the lock file (which only marks use)."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name != "_lock"
    }
