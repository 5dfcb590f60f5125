"""Loaded by a child Python whose ``PYTHONPATH`` starts here: a full disk under one folder.

Every file opened for writing below ``FULL_DISK_UNDER`` is created (so names
and renames behave) but written through ``/dev/full``, whose writes fail with
ENOSPC as a full file system's do: the failure comes from the kernel, at the
same calls, not from a patched function of the project.
"""

from __future__ import annotations

import builtins
import io
import os
from typing import Any

_FOLDER = os.environ.get("FULL_DISK_UNDER")
_WRITES = os.O_WRONLY | os.O_RDWR
_os_open = os.open
_io_open = io.open


def _inside(path: Any) -> bool:
    try:
        real = os.path.realpath(os.fsdecode(path))
    except TypeError:
        return False
    assert _FOLDER is not None
    return real == _FOLDER or real.startswith(_FOLDER + os.sep)


def _open_fd(path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
    if dir_fd is None and flags & _WRITES and _inside(path):
        os.close(_os_open(path, flags, mode))
        return _os_open("/dev/full", os.O_WRONLY)
    return _os_open(path, flags, mode, dir_fd=dir_fd)


def _open_file(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
    writing = any(letter in mode for letter in "wax+")
    if writing and isinstance(file, str | bytes | os.PathLike) and _inside(file):
        _io_open(file, "ab").close()
        return _io_open("/dev/full", "wb" if "b" in mode else "w", *args, **kwargs)
    return _io_open(file, mode, *args, **kwargs)


if _FOLDER:
    _FOLDER = os.path.realpath(_FOLDER)
    os.open = _open_fd
    io.open = builtins.open = _open_file
