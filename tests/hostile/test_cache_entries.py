"""Cache entries are untrusted: an edited one is reported and re-parsed, never used."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.hostile.documents import load_here, rf7, rf7_test, write

Edit = Callable[[dict[str, Any]], None]


def _test(entry: dict[str, Any]) -> dict[str, Any]:
    return entry["builds"][0]["tests"][0]


def _set(where: Callable[[dict[str, Any]], dict[str, Any]], key: str, value: Any) -> Edit:
    return lambda entry: where(entry).__setitem__(key, value)


EDITS: dict[str, Edit] = {
    "huge value": lambda entry: _test(entry)["measurements"][0].__setitem__(2, [1e300]),
    "huge negative value": lambda entry: _test(entry)["measurements"][0].__setitem__(2, [-1e300]),
    "string value": lambda entry: _test(entry)["measurements"][0].__setitem__(2, ["1"]),
    "dict name": _set(_test, "name", {"a": 1}),
    "dict thread_core": _set(_test, "thread_core", {"a": 1}),
    "string tags": _set(_test, "tags", "abc"),
    "list message": _set(_test, "message", ["x"]),
    "naive time": _set(lambda entry: entry["builds"][0], "time", "2024-05-01T00:00:00"),
    "year 9999": _set(lambda entry: entry["builds"][0], "time", "9999-12-31T23:59:59+00:00"),
    "number job": _set(lambda entry: entry["builds"][0], "job", 7),
    "tests dict": _set(lambda entry: entry["builds"][0], "tests", {}),
    "short measurement": lambda entry: _test(entry)["measurements"].__setitem__(0, ["mrr"]),
    "string line": lambda entry: entry["problems"].append(
        {"origin": "x", "message": "m", "subtype": "parse", "line": "7"}
    ),
}


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_an_edited_entry_is_reparsed(tmp_path: Path, edit: Edit) -> None:
    data = write(tmp_path / "data", "job__1__output.xml", rf7(rf7_test("t1") + rf7_test("t2")))
    cache = tmp_path / "cache"
    first = load_here(data, cache_dir=cache)
    (entry_path,) = (cache / "parsed").glob("*.json")
    entry = json.loads(entry_path.read_text())
    edit(entry)
    entry_path.write_text(json.dumps(entry))
    again = load_here(data, cache_dir=cache)
    assert again.builds == first.builds
    assert again.parsed == [str(data)]
    (problem,) = again.problems
    assert problem.subtype == "cache"
    assert "corrupt or foreign cache entry, re-parsed" in problem.message
