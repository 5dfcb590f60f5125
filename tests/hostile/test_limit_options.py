"""The caps and the text encoding are configurable in conf.py and on the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.ingest.limits import DEFAULT_LIMITS
from sphinxcontrib_trending.settings import validate
from tests.hostile.documents import rf7, rf7_test, write


def test_conf_py_limits_and_encoding_reach_the_spec(tmp_path: Path) -> None:
    raw = {"paths": ["a.csv"], "limits": {"max_tests": 10}, "encoding": "latin-1"}
    settings, issues = validate({"trending_sources": {"s": raw}}, tmp_path)
    spec = settings.sources["s"].spec
    assert issues == []
    assert (spec.limits.max_tests, spec.encoding) == (10, "latin-1")
    assert spec.limits.max_expanded_bytes == DEFAULT_LIMITS.max_expanded_bytes


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ({"limits": {"max_tests": -1}}, "must be a positive number"),
        ({"limits": [1]}, "expected a dict of limits"),
        ({"encoding": "klingon"}, "not a known text encoding"),
    ],
)
def test_bad_conf_py_values_are_named(tmp_path: Path, raw: dict[str, object], said: str) -> None:
    _settings, issues = validate({"trending_sources": {"s": {"paths": ["a"], **raw}}}, tmp_path)
    assert any(said in str(issue) for issue in issues)


def test_export_takes_limit_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "job__1__output.xml", rf7(rf7_test("t1") + rf7_test("t2")))
    argv = ["export", str(tmp_path / "job__1__output.xml"), "--quiet"]
    assert main(argv) == 0
    assert main([*argv, "--limit", "max_tests=1"]) == 1
    assert "holds more than max_tests (1) tests" in capsys.readouterr().err
    assert main([*argv, "--limit", "max_bogus=1"]) == 2
    assert "unknown limit 'max_bogus'" in capsys.readouterr().err
