"""Control characters from data never reach the terminal raw through ``check``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main
from tests.hostile.documents import write


def test_check_table_shows_control_characters_visibly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "s.evil\x1b[2J\x00\x07\nname"
    rows = [
        {"test": name, "job": "j\x1b]0;t\x07", "build": n, "time": f"2024-05-{n:02d}T00:00:00Z",
         "values": [100.0 if n < 9 else 50.0] * 3}
        for n in range(1, 11)
    ]  # fmt: skip
    path = write(tmp_path, "r.jsonl", "".join(json.dumps(row) + "\n" for row in rows))
    main(["check", str(path), "--format", "jsonl", "--verbose"])
    out = capsys.readouterr().out
    assert "evil\\x1b[2J\\x00\\x07\\x0aname" in out
    assert "j\\x1b]0;t\\x07" in out
    assert not {"\x1b", "\x00", "\x07"} & set(out)


def test_problem_lines_on_stderr_show_control_characters_visibly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = {"test": "s.\x1b[31mred", "build": 1, "time": "2024-05-01T00:00:00Z", "values": [1e300]}
    good = {"test": "s.t", "build": 2, "time": "2024-05-02T00:00:00Z", "values": [1]}
    path = write(tmp_path, "r.jsonl", json.dumps(bad) + "\n" + json.dumps(good) + "\n")
    main(["check", str(path), "--format", "jsonl"])
    main(["export", str(path), "--format", "jsonl", "--quiet"])
    err = capsys.readouterr().err
    assert err.count("s.\\x1b[31mred") == 2 and "\x1b" not in err
