"""Every trending_* value is registered with the types it accepts (issue 9).

A valid value must never make Sphinx warn about its type, and an invalid one
gets exactly one warning, ours, which says what was expected.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sphinx.cmd.build import build_main

from tests.conftest import ROOTS
from tests.sphinxext import datasets


def build(tmp_path: Path, conf_lines: str, *options: str, pages: bool = False) -> tuple[int, str]:
    """Build a site with lines added to conf.py; exit code and warnings.

    The site is the full test site with ``pages``, else one page and no source.
    """
    srcdir = tmp_path / "site"
    if pages:
        shutil.copytree(ROOTS / "test-trending", srcdir)
        datasets.write(srcdir / "data", range(1, datasets.BUILDS + 1))
    else:
        srcdir.mkdir()
        (srcdir / "conf.py").write_text('extensions = ["sphinxcontrib_trending"]\n')
        (srcdir / "index.rst").write_text("Tiny\n====\n")
    with (srcdir / "conf.py").open("a") as conf:
        conf.write(conf_lines)
    warnings = tmp_path / "warnings.txt"
    code = build_main(
        ["-q", "-b", "html", "-w", str(warnings), *options, str(srcdir), str(tmp_path / "out")]
    )
    return code, warnings.read_text()


def test_fractional_days_build_under_w_without_a_warning(tmp_path: Path) -> None:
    conf = "trending_short_term_days = 3.5\ntrending_sbps = 4\n"
    code, warnings = build(tmp_path, conf, "-W", pages=True)
    assert (code, warnings) == (0, "")


@pytest.mark.parametrize(
    ("conf_lines", "expected"),
    [
        ('trending_short_term_days = "a week"\n', "expected float, got 'a week'"),
        ("trending_anomaly_policy = 0.95\n", "expected dict, got 0.95"),
        ("trending_plotlyjs = 3\n", 'expected "bundled" | "cdn" | str, got 3'),
    ],
)
def test_a_wrong_type_is_exactly_one_config_warning(
    tmp_path: Path, conf_lines: str, expected: str
) -> None:
    code, warnings = build(tmp_path, conf_lines)
    assert code == 0
    assert warnings.count("WARNING") == 1, warnings
    assert "[trending.config]" in warnings and expected in warnings


def test_a_misspelt_source_key_fails_a_w_build_naming_source_and_key(tmp_path: Path) -> None:
    conf = 'trending_sources = {"perf": {"paht": "data/*.jsonl", "format": "jsonl"}}\n'
    code, warnings = build(tmp_path, conf, "-W", "--keep-going")
    assert code != 0
    assert "trending_sources['perf']['paht']: unknown key 'paht'; did you mean 'paths'?" in (
        warnings
    )


def test_a_misspelt_option_name_warns(tmp_path: Path) -> None:
    _, warnings = build(tmp_path, "trending_serach = 'jumpavg'\n")
    assert "trending_serach: unknown setting" in warnings
    assert "did you mean 'trending_search'?" in warnings


@pytest.mark.parametrize(
    ("override", "name", "expected"),
    [
        ("trending_workers=1", "trending_workers", 1),
        ("trending_false_alarm_target=0.5", "trending_false_alarm_target", 0.5),
    ],
)
def test_a_number_given_with_dash_d_is_that_number(
    tmp_path: Path, override: str, name: str, expected: float
) -> None:
    """A docs CI sets these per run (``-D trending_workers=1``); their default is None,
    by whose type Sphinx cannot convert the text."""
    conf = f"import json, pathlib\n{OBSERVE.format(name=name)}"
    code, warnings = build(tmp_path, conf, "-W", "-D", override)
    assert (code, warnings) == (0, "")
    assert json.loads((tmp_path / "site" / "seen.json").read_text()) == expected


def test_a_dash_d_value_that_is_no_number_is_one_config_warning(tmp_path: Path) -> None:
    code, warnings = build(tmp_path, "", "-D", "trending_workers=two")
    assert code == 0
    assert warnings.count("WARNING") == 1, warnings
    assert "expected" in warnings and "'two'" in warnings


OBSERVE = """
def _seen(app, config):
    pathlib.Path(app.confdir, "seen.json").write_text(json.dumps(config.{name}))

def setup(app):
    app.connect("config-inited", _seen, priority=900)
"""
"""conf.py lines that write the value the extension validated (after its config-inited)."""
