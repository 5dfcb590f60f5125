"""``sphinx-trending init`` renders a project that builds, and never clobbers files."""

import ast
from pathlib import Path

from sphinxcontrib_trending.cli import main


def test_init_renders_every_template_with_safe_literals(tmp_path: Path) -> None:
    target = tmp_path / "site"
    tricky = 'archive/it\'s "quoted"\n*.xml.gz'
    code = main(["init", str(target), "--source", tricky, "--name", "mrr", "--title", "Perf"])
    assert code == 0
    assert sorted(p.name for p in target.iterdir()) == [
        "conf.py",
        "dashboard.rst",
        "failed.rst",
        "graphs.rst",
        "index.rst",
    ]
    namespace: dict = {}
    conf_source = (target / "conf.py").read_text()
    ast.parse(conf_source)
    exec(compile(conf_source, "conf.py", "exec"), namespace)  # noqa: S102 - our own template
    assert namespace["trending_sources"] == {"mrr": {"paths": [tricky], "format": "robot"}}
    assert namespace["project"] == "Perf"
    index = (target / "index.rst").read_text()
    assert index.startswith("Perf\n====\n")
    assert ":source: mrr" in (target / "dashboard.rst").read_text()


def test_init_refuses_to_overwrite_without_force(tmp_path: Path, capsys) -> None:
    (tmp_path / "conf.py").write_text("# mine\n")
    assert main(["init", str(tmp_path), "--source", "x.xml"]) == 2
    assert (tmp_path / "conf.py").read_text() == "# mine\n"
    assert "refusing to overwrite" in capsys.readouterr().err
    assert not (tmp_path / "index.rst").exists()
    assert main(["init", str(tmp_path), "--source", "x.xml", "--force"]) == 0
    assert "trending_sources" in (tmp_path / "conf.py").read_text()
