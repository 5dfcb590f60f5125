"""The command line as a user meets it: --version, --help texts, the docs' option lists."""

from __future__ import annotations

import argparse
import re
import signal
import sys
from pathlib import Path

import pytest

from sphinxcontrib_trending import __version__
from sphinxcontrib_trending.cli import COMMANDS, build_parser, main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RST_MARKUP = re.compile(r"``|:(option|confval|doc|ref|class|func):`")


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["--version"])
    assert raised.value.code == 0
    assert capsys.readouterr().out.strip() == f"sphinx-trending {__version__}"


def _help(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as raised:
        main(argv)
    assert raised.value.code == 0
    return capsys.readouterr().out


def test_the_command_list_reads_the_same_without_loading_the_commands(capsys) -> None:
    """``--help`` lists every command with its summary from names alone."""
    listing = _help(["--help"], capsys)
    assert listing == build_parser().format_help()
    words = " ".join(listing.split())
    assert all(f"{name} {command.summary}" in words for name, command in COMMANDS.items())


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_command_loaded_alone_has_all_its_options(command: str, capsys) -> None:
    assert _help([command, "--help"], capsys) == _subparsers()[command].format_help()


@pytest.mark.parametrize("command", ["init", "export", "check"])
def test_help_has_no_raw_rst_and_every_option_says_what_it_does(command: str) -> None:
    parser = _subparsers()[command]
    assert not RST_MARKUP.search(parser.format_help()), parser.format_help()
    undocumented = [
        action.option_strings or action.dest
        for action in parser._actions
        if not action.help or action.help == argparse.SUPPRESS
    ]
    assert undocumented == []


def _documented(page: str) -> dict[str, str]:
    """``.. option:: --name METAVAR`` lines of a docs page, by long option name."""
    found = {}
    for line in (DOCS / page).read_text().splitlines():
        match = re.match(r"\.\. option:: (-\w, )?(--[\w-]+)(.*)$", line)
        if match:
            found[match.group(2)] = match.group(3).strip()
    return found


def _signature(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.metavar:
        return str(action.metavar)
    if action.choices:
        return "{" + ",".join(action.choices) + "}"
    return action.dest.upper()


@pytest.mark.parametrize(
    ("command", "page"),
    [
        ("check", "cli_check.rst"),
        ("export", "cli_export.rst"),
        ("ingest", "cli_ingest.rst"),
        ("incidents", "cli_incidents.rst"),
    ],
)
def test_every_option_is_documented_with_the_same_metavar(command: str, page: str) -> None:
    parser = _subparsers()[command]
    options = {
        max(action.option_strings, key=len): _signature(action)
        for action in parser._actions
        if action.option_strings and action.dest != "help"
    }
    assert _documented(page) == options


@pytest.mark.parametrize(
    ("name", "content", "fmt"),
    [
        ("results.csv", "job,build,test_id,metric,value\n", "csv"),
        ("results.jsonl", '{"job": "a"}\n', "jsonl"),
        ("results.txt", "job,build,test_id\n", "csv"),
        ("results.log", '{"job": "a"}\n', "jsonl"),
        ("results.json", '{"job": "a"}\n', "jsonl"),
        ("run.json", '{\n "machine_info": {}, "benchmarks": []}', "pytest-benchmark"),
        ("run.json", '{\n  "context": {"date": ""}, "benchmarks": []}', "google-benchmark"),
    ],
)
def test_export_without_format_names_the_format_to_pass(
    tmp_path: Path, capsys, name: str, content: str, fmt: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    assert main(["export", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"set format {fmt}" in err and f"--format {fmt} on the command line" in err
    assert "malformed XML" not in err
    assert main(["check", str(path)]) == 2
    assert f"set format {fmt}" in capsys.readouterr().err


def test_xml_without_format_is_read_as_robot(tmp_path: Path, capsys) -> None:
    path = tmp_path / "run.xml"
    path.write_text("<robot/>")
    main(["export", "--quiet", str(path)])
    assert "set format" not in capsys.readouterr().err


def test_install_page_lists_every_runtime_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = [re.match(r"[\w.-]+", spec).group(0) for spec in project["dependencies"]]
    text = (DOCS / "install.rst").read_text().lower()
    assert [name for name in names if name.lower() not in text] == []


def test_main_as_a_function_leaves_the_sigterm_handler_as_it_found_it(
    tmp_path: Path, capsys
) -> None:
    """A CI timeout ends the command cleanly, but a process calling main() keeps its own
    handler: pool workers it forks later must still die on SIGTERM (a raising handler
    inherited by them hung a pool's terminate)."""
    before = signal.getsignal(signal.SIGTERM)
    assert main(["export", str(tmp_path / "none.xml"), "--format", "robot"]) != 0
    assert signal.getsignal(signal.SIGTERM) is before
    with pytest.raises(SystemExit):
        main(["--version"])
    assert signal.getsignal(signal.SIGTERM) is before
