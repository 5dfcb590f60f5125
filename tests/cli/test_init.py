"""``sphinx-trending init`` renders a project that builds, and never clobbers files."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import lxml.html
import pytest
from docutils import nodes
from docutils.core import publish_doctree

from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.cli.init import python_literal, rst_text
from tests.sphinxext import datasets

QUICKSTART_FILES = ["Makefile", "make.bat"]


def _conf(target: Path) -> dict:
    namespace: dict = {}
    conf_source = (target / "conf.py").read_text()
    ast.parse(conf_source)
    exec(compile(conf_source, "conf.py", "exec"), namespace)  # noqa: S102 - our own template
    return namespace


def test_init_renders_every_template_with_safe_literals(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    tricky = 'archive/it\'s "quoted"\n*.xml.gz'
    code = main(["init", "site", "--source", tricky, "--name", "mrr", "--title", "Perf"])
    assert code == 0
    target = tmp_path / "site"
    assert sorted(p.name for p in target.iterdir()) == sorted(
        ["conf.py", "dashboard.rst", "failed.rst", "graphs.rst", "index.rst", *QUICKSTART_FILES]
    )
    namespace = _conf(target)
    assert namespace["trending_sources"] == {
        "mrr": {
            "paths": ["../" + tricky],
            "format": "robot",
            "metric": "mrr",
            "direction": "higher",
        }
    }
    assert namespace["project"] == "Perf"
    assert namespace["author"]
    assert namespace["copyright"].endswith(", " + namespace["author"])
    index = (target / "index.rst").read_text()
    assert index.startswith("Perf\n====\n")
    assert ":source: mrr" in (target / "dashboard.rst").read_text()


def test_init_writes_sphinx_quickstart_build_scripts(tmp_path: Path) -> None:
    target = tmp_path / "site"
    assert main(["init", str(target), "--source", "x.xml", "--author", "Ann Example"]) == 0
    makefile = (target / "Makefile").read_text()
    assert "SOURCEDIR     = ." in makefile
    assert "BUILDDIR      = _build" in makefile
    assert b"\r\n" in (target / "make.bat").read_bytes()
    conf = _conf(target)
    assert conf["author"] == "Ann Example"
    assert conf["copyright"].split(", ", 1)[1] == "Ann Example"
    conf_text = (target / "conf.py").read_text()
    assert "'" not in conf_text.split('"""', 2)[2], "one quote style in conf.py"


def test_init_title_cannot_inject_python_or_rst(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    title = (
        f'T"""; import os; os.system("touch {marker}"); """\n'
        ".. raw:: html\n\n   &#60;b&#62;raw\n`link`_ *emph* |sub| http://x"
    )
    target = tmp_path / "site"
    assert main(["init", str(target), "--source", "x.xml", "--title", title]) == 0
    namespace = _conf(target)
    assert not marker.exists()
    assert namespace["project"] == " ".join(title.split())
    doctree = publish_doctree(
        (target / "index.rst").read_text().split(".. toctree::")[0],
        settings_overrides={"report_level": 5},
    )
    assert not list(doctree.findall(nodes.raw))
    assert not list(doctree.findall(nodes.reference))
    assert not list(doctree.findall(nodes.emphasis))
    assert not list(doctree.findall(nodes.system_message))
    assert doctree.next_node(nodes.title).astext() == " ".join(title.split())


@pytest.mark.parametrize(
    "value",
    ["plain", "it's", 'say "hi"', "both ' and \"", "back\\slash\n\t\x00é😀"],
)
def test_python_literal_means_the_value(value: str) -> None:
    assert ast.literal_eval(python_literal(value)) == value
    assert ast.literal_eval(python_literal([value, value])) == [value, value]


def test_rst_text_is_one_literal_line() -> None:
    text = rst_text("a\n\n.. raw:: html\n\x1b[31m*b*")
    assert "\n" not in text and "\x1b" not in text
    assert publish_doctree(text).astext() == "a .. raw:: html [31m*b*"


@pytest.mark.parametrize("option", ["--title", "--author"])
def test_init_refuses_html_in_values_themes_show_as_html(tmp_path: Path, option, capsys) -> None:
    code = main(["init", str(tmp_path / "s"), "--source", "x", option, "<script>x</script>"])
    assert code == 2
    assert option in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_init_refuses_a_source_name_that_is_not_a_plain_name(tmp_path: Path, capsys) -> None:
    code = main(["init", str(tmp_path / "s"), "--source", "x", "--name", "a\n   :filter: x"])
    assert code == 2
    assert "--name" in capsys.readouterr().err


def test_init_refuses_to_overwrite_without_force(tmp_path: Path, capsys) -> None:
    (tmp_path / "Makefile").write_text("# mine\n")
    assert main(["init", str(tmp_path), "--source", "x.xml"]) == 2
    assert (tmp_path / "Makefile").read_text() == "# mine\n"
    assert "refusing to overwrite" in capsys.readouterr().err
    assert not (tmp_path / "index.rst").exists()
    assert main(["init", str(tmp_path), "--source", "x.xml", "--force"]) == 0
    assert "trending_sources" in (tmp_path / "conf.py").read_text()


def test_init_warns_at_once_when_sources_match_nothing(tmp_path: Path, capsys) -> None:
    code = main(["init", str(tmp_path / "s"), "--source", str(tmp_path / "none*.xml")])
    assert code == 0
    assert "match no usable build" in capsys.readouterr().err


def _latency_rows(path: Path) -> None:
    rows = [
        {
            "test": f"suite.case-{name}",
            "build": build,
            "time": f"2026-01-{build:02d}T00:00:00Z",
            "metric": "latency",
            "unit": "s",
            "values": [1.0 + build % 2],
        }
        for build in range(1, 6)
        for name in ("a", "b")
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_init_picks_the_only_metric_and_lists_metrics_for_a_wrong_one(
    tmp_path: Path, capsys
) -> None:
    _latency_rows(tmp_path / "r.jsonl")
    source = str(tmp_path / "r.jsonl")
    assert main(["init", str(tmp_path / "a"), "--source", source, "--format", "jsonl"]) == 0
    assert "metrics in the data: latency" in capsys.readouterr().err
    assert _conf(tmp_path / "a")["trending_sources"]["results"]["metric"] == "latency"
    args = ["--format", "jsonl", "--metric", "mrr", "--direction", "lower"]
    assert main(["init", str(tmp_path / "b"), "--source", source, *args]) == 0
    assert "no test has metric 'mrr' (metrics in the data: latency)" in capsys.readouterr().err
    source_conf = _conf(tmp_path / "b")["trending_sources"]["results"]
    assert (source_conf["metric"], source_conf["direction"]) == ("mrr", "lower")


def test_init_site_from_relative_source_builds_a_dashboard(tmp_path: Path, monkeypatch) -> None:
    """A relative --source is read from the shell's folder, and the site finds it too."""
    datasets.write(tmp_path / "data", range(1, 11))
    monkeypatch.chdir(tmp_path / "data")
    code = main(["init", "../sites/one", "--source", "*.jsonl", "--format", "jsonl"])
    assert code == 0
    site = tmp_path / "sites" / "one"
    assert _conf(site)["trending_sources"]["results"]["paths"] == ["../../data/*.jsonl"]
    monkeypatch.chdir(tmp_path)
    completed = subprocess.run(
        [sys.executable, "-m", "sphinx", "-M", "html", str(site), str(site / "_build"), "-q"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "WARNING" not in completed.stderr, completed.stderr
    dashboard = lxml.html.parse(str(site / "_build" / "html" / "dashboard.html")).getroot()
    names = {cell.text_content().strip() for cell in dashboard.xpath("//tbody/tr/td[1]")}
    assert names == set(datasets.TESTS)
    footer = lxml.html.parse(str(site / "_build" / "html" / "index.html")).getroot()
    assert "©." not in footer.text_content()


def test_init_without_format_refuses_a_table_naming_the_format(tmp_path: Path, capsys) -> None:
    _latency_rows(tmp_path / "r.log")
    assert main(["init", str(tmp_path / "s"), "--source", str(tmp_path / "r.log")]) == 2
    assert "looks like JSONL" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()
    assert (
        main(
            ["init", str(tmp_path / "s"), "--source", str(tmp_path / "r.log"), "--format", "jsonl"]
        )
        == 0
    )
    assert _conf(tmp_path / "s")["trending_sources"]["results"]["format"] == "jsonl"
