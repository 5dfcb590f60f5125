"""An internal error is exit 70 with one line naming the cause and the traceback file."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from sphinxcontrib_trending import cli
from sphinxcontrib_trending.cli import export


def test_an_internal_error_is_never_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def broken_load(*_args: object, **_kwargs: object) -> None:
        raise ZeroDivisionError("the bug\nsecond line")

    monkeypatch.setattr(export, "load", broken_load)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    code = cli.main(["export", str(tmp_path), "--quiet"])
    assert code == cli.EXIT_INTERNAL == 70
    (line,) = capsys.readouterr().err.splitlines()
    assert "internal error (ZeroDivisionError: the bug)" in line
    written = Path(line.rsplit("traceback written to ", 1)[1])
    assert written.parent == tmp_path
    assert "broken_load" in written.read_text()
