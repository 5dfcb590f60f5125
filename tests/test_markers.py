"""The suite's markers: slow tests run by default, shared-data tests say what they need."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tests import shared_data

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _pytest_options() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]


def test_the_readme_command_runs_the_slow_tests() -> None:
    """``python -m pytest`` is what the README and CI run: addopts must not deselect."""
    options = _pytest_options()
    addopts = shlex.split(options["addopts"])
    assert "-m" not in addopts and not any(arg.startswith("-m") for arg in addopts)
    assert "--strict-markers" in addopts
    declared = {line.split(":", 1)[0] for line in options["markers"]}
    assert {"slow", "shared_data"} <= declared
    assert "python3 -m pytest\n" in (ROOT / "README.md").read_text()


def test_absent_data_is_named_by_its_path(tmp_path: Path) -> None:
    (tmp_path / "tcpd").mkdir()
    assert shared_data.absent_reason("tcpd", root=tmp_path) is None
    reason = shared_data.absent_reason("turing", root=tmp_path)
    assert reason is not None and str(tmp_path / "turing") in reason
    assert shared_data.required({shared_data.REQUIRE: "1"})
    assert not shared_data.required({shared_data.REQUIRE: "0"})
    assert not shared_data.required({})


MARKED = """
import pytest

@pytest.mark.shared_data("no-such-set-{token}")
def test_needs_data():
    pass
"""


@pytest.mark.parametrize("require", [False, True], ids=["skips", "fails-when-required"])
def test_marked_test_without_data(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, require: bool
) -> None:
    pytester.makeconftest("from tests.conftest import pytest_runtest_setup  # noqa: F401\n")
    pytester.makepyfile(test_marked=MARKED.format(token=pytester.path.name))
    if require:
        monkeypatch.setenv(shared_data.REQUIRE, "1")
    else:
        monkeypatch.delenv(shared_data.REQUIRE, raising=False)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_inprocess("-rs", "-p", "no:cacheprovider")
    expected = shared_data.SHARED_DATA / f"no-such-set-{pytester.path.name}"
    if require:
        result.assert_outcomes(errors=1)
    else:
        result.assert_outcomes(skipped=1)
    assert f"needs the evaluation data at {expected}" in result.stdout.str()
