"""The Publishing page's CI examples: valid YAML, and commands the real CLI accepts."""

from __future__ import annotations

import re
import shlex
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from sphinxcontrib_trending.cli import build_parser

PAGE = Path(__file__).resolve().parents[1] / "docs" / "publishing.rst"
BLOCK = re.compile(r"^\.\. code-block:: (\w+)\n\n((?:(?:   .*)?\n)+)", re.MULTILINE)


def _blocks() -> list[tuple[str, str]]:
    return [(language, textwrap.dedent(body)) for language, body in BLOCK.findall(PAGE.read_text())]


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _commands() -> list[str]:
    """Every ``sphinx-trending`` command line of the page, continuation lines joined."""
    commands = []
    for language, body in _blocks():
        texts = list(_strings(yaml.safe_load(body))) if language == "yaml" else [body]
        for text in texts:
            joined = text.replace("\\\n", " ")
            # a command starts a line or follows a blank; not one quoted in a message
            commands += re.findall(r"(?:^|(?<=\s))sphinx-trending [^\n']*", joined, re.M)
    return commands


def test_the_page_has_an_example_for_each_ci_system() -> None:
    languages = [language for language, _ in _blocks()]
    # GitHub Actions, GitLab CI, Read the Docs, and a pull request's job on the first two
    assert languages.count("yaml") == 5
    assert "groovy" in languages  # Jenkins
    text = PAGE.read_text()
    for system in ("Jenkins", "GitHub Actions", "GitLab CI", "Read the Docs"):
        assert f"\n{system}\n" in text
    assert "\nPull requests and branches\n" in text
    assert text.count("--baseline-job perf-main-2n-skx") == 2


@pytest.mark.parametrize("command", _commands())
def test_every_command_parses_with_the_real_cli(command: str) -> None:
    argv = shlex.split(command)
    assert argv[0] == "sphinx-trending"
    arguments = build_parser().parse_args(argv[1:])
    assert arguments.command == "check"


def test_there_are_commands_to_check() -> None:
    assert len(_commands()) == 5


def test_read_the_docs_configuration_is_version_2_with_the_sphinx_conf() -> None:
    (rtd,) = [
        yaml.safe_load(body)
        for language, body in _blocks()
        if language == "yaml" and "sphinx:" in body
    ]
    assert rtd["version"] == 2
    assert rtd["sphinx"]["configuration"] == "docs/conf.py"
