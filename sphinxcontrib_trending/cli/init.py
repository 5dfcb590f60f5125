"""``sphinx-trending init DIR --source PATH``: a working trending site at once.

The templates in ``conf_templates/`` are rendered with Jinja2; the Makefile
and make.bat come from sphinx-quickstart's own templates, so an init site is
laid out like any other Sphinx project.  Existing files are never overwritten
unless ``--force`` is given, so running it in a folder that holds somebody's
work loses nothing.

Every user-given value that lands in ``conf.py`` is written as a Python
literal, and every one that lands in reST is escaped or validated: a title
or a source name can never become code or markup.  The sources are read once
before anything is written, so a path that matches nothing, or a metric the
data does not have, is reported at once instead of at the first build.
"""

from __future__ import annotations

import argparse
import getpass
import os
import re
import sys
import unicodedata
from datetime import date
from importlib.resources import files
from pathlib import Path
from typing import Any

import jinja2
from docutils.utils import column_width
from sphinx.cmd.quickstart import QuickstartRenderer

from sphinxcontrib_trending.analysis.classify import DIRECTIONS
from sphinxcontrib_trending.cli.exits import EXIT_USAGE
from sphinxcontrib_trending.cli.reading import add_value_arguments, default_format
from sphinxcontrib_trending.ingest import SourceSpec, SpecError, load
from sphinxcontrib_trending.ingest.downloaded import is_url
from sphinxcontrib_trending.ingest.metrics import metric_direction
from sphinxcontrib_trending.ingest.model import Dataset, metrics_in, metrics_note
from sphinxcontrib_trending.ingest.spec import DEFAULT_METRIC, FORMATS

TEMPLATES = ("conf.py", "index.rst", "dashboard.rst", "failed.rst", "graphs.rst")
QUICKSTART_FILES = {"Makefile": "\n", "make.bat": "\r\n"}
"""sphinx-quickstart's build scripts, with the line endings it writes them with."""

SOURCE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
RST_SPECIAL = re.compile(r"([!-/:-@\[-`{-~])")
"""Every ASCII punctuation character: backslash-escaped, each is literal text in reST."""
MAX_PROBLEMS_SHOWN = 10


class InitError(Exception):
    """A value ``init`` cannot write safely; the message says which and why."""


def register(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        "init",
        help=summary,
        description="Create a ready-to-build Sphinx project with a dashboard, failed-tests "
        "table and trend graphs over the given archives.",
    )
    parser.add_argument("directory", type=Path, help="folder of the new project")
    parser.add_argument(
        "--source",
        action="append",
        required=True,
        metavar="PATH",
        help="archive file, folder, glob or URL (repeatable); a relative path is relative "
        "to the current folder and written into conf.py relative to the new project",
    )
    parser.add_argument(
        "--name",
        default="results",
        help="name of the source: letters, digits, '_', '.', '-' (default: results)",
    )
    parser.add_argument("--title", default="Performance trending", help="site title")
    parser.add_argument(
        "--author", default=None, help="author named in the copyright (default: your user name)"
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="input format (default: robot; a .csv or .jsonl source needs --format)",
    )
    parser.add_argument(
        "--metric",
        default=None,
        help=f"metric to trend (default: {DEFAULT_METRIC}, or the data's only metric)",
    )
    parser.add_argument(
        "--direction",
        choices=DIRECTIONS,
        default=None,
        help="which way is better for the metric (default: the metric table's, else higher)",
    )
    add_value_arguments(parser)
    parser.add_argument("--force", action="store_true", help="overwrite existing files")
    parser.set_defaults(handler=run)


def python_literal(value: str | list[str]) -> str:
    """A Python literal of ``value``, in double quotes like the rest of conf.py.

    ``repr`` does the escaping; only its choice of quote is changed, and only
    when the text has no double quote, so the literal always means ``value``.
    """
    if isinstance(value, list):
        return "[" + ", ".join(python_literal(item) for item in value) + "]"
    text = repr(value)
    if text.startswith("'") and '"' not in value:
        return '"' + text[1:-1] + '"'
    return text


def regex_literal(pattern: str) -> str:
    """A raw string literal of a regular expression, as people write them in conf.py.

    Only when the raw form means the same text: printable, no double quote,
    no trailing backslash (it would escape the closing quote); otherwise the
    escaped :func:`python_literal`.
    """
    if pattern.isprintable() and '"' not in pattern and not pattern.endswith("\\"):
        return f'r"{pattern}"'
    return python_literal(pattern)


def _one_line(text: str) -> str:
    """Whitespace runs (newlines included) become one space; controls are dropped."""
    visible = "".join(
        " " if character.isspace() else character
        for character in text
        if character.isspace() or unicodedata.category(character) not in ("Cc", "Cf")
    )
    return " ".join(visible.split())


def rst_text(text: str) -> str:
    """``text`` as one line of literal reST: no markup, role, directive or target."""
    return RST_SPECIAL.sub(r"\\\1", _one_line(text))


def rst_underline(text: str, character: str = "=") -> str:
    return character * max(column_width(text), 1)


def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(files("sphinxcontrib_trending") / "conf_templates")),
        autoescape=False,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    environment.filters["pyliteral"] = python_literal
    environment.filters["regexliteral"] = regex_literal
    environment.filters["rst"] = rst_text
    environment.filters["underline"] = rst_underline
    return environment


def site_relative(entry: str, site: Path, cwd: Path) -> str:
    """A path as the shell user meant it (from ``cwd``), as conf.py needs it (from the site).

    URLs and absolute paths are kept; globs survive because only the text of
    the path is rewritten.
    """
    if is_url(entry) or os.path.isabs(entry):
        return entry
    absolute = os.path.normpath(os.path.join(cwd, entry))
    return Path(os.path.relpath(absolute, site.resolve())).as_posix()


def _read_sources(paths: list[str], args: argparse.Namespace) -> tuple[Dataset, str]:
    """The data and its format: ``--format``, else robot unless a path plainly is a table."""
    try:
        spec = SourceSpec(
            paths=tuple(paths),
            format=args.format or default_format(paths),
            metric=args.metric or DEFAULT_METRIC,
            direction=args.direction,
            value_pattern=args.value_pattern,
            value_keyword=args.value_keyword,
        )
        return load(spec), spec.format
    except SpecError as error:
        raise InitError(str(error)) from None


def _chosen_metric(dataset: Dataset, requested: str | None) -> str:
    """The metric to trend, with a warning when the data cannot show it."""
    found = metrics_in(dataset.builds)
    if requested is None:
        if DEFAULT_METRIC in found or not found:
            return DEFAULT_METRIC
        print(
            f"sphinx-trending init: no test has metric {DEFAULT_METRIC!r}; using {found[0]!r} "
            f"({metrics_note(dataset.builds)}; choose with --metric)",
            file=sys.stderr,
        )
        return found[0]
    if dataset.builds and requested not in found:
        print(
            f"sphinx-trending init: warning: no test has metric {requested!r} "
            f"({metrics_note(dataset.builds)})",
            file=sys.stderr,
        )
    return requested


def _report(dataset: Dataset, sources: list[str]) -> None:
    for problem in dataset.problems[:MAX_PROBLEMS_SHOWN]:
        print(f"sphinx-trending init: warning: {problem}", file=sys.stderr)
    hidden = len(dataset.problems) - MAX_PROBLEMS_SHOWN
    if hidden > 0:
        print(f"sphinx-trending init: ... and {hidden} more problem(s)", file=sys.stderr)
    if not dataset.builds:
        print(
            "sphinx-trending init: warning: the sources match no usable build "
            f"({', '.join(sources)}); the site will show nothing until they do",
            file=sys.stderr,
        )


def _checked_names(args: argparse.Namespace) -> tuple[str, str]:
    """The title and author as one line each; the source name as it must be."""
    if not SOURCE_NAME.match(args.name):
        raise InitError(
            f"--name {args.name!r}: use letters, digits, '_', '.' and '-' only, "
            "starting with a letter or digit"
        )
    title = _one_line(args.title)
    if not title:
        raise InitError("--title is empty")
    author = _one_line(args.author if args.author is not None else _user_name())
    for option, value in (("--title", title), ("--author", author)):
        if "<" in value or ">" in value:
            # Themes (alabaster among them) show the project and copyright as HTML.
            raise InitError(f"{option} {value!r}: '<' and '>' are not allowed")
    return title, author


def _user_name() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "the authors"


def _rendered(context: dict[str, Any]) -> dict[str, str]:
    """File name -> text of every file ``init`` writes."""
    environment = _environment()
    texts = {name: environment.get_template(f"{name}.j2").render(context) for name in TEMPLATES}
    quickstart = QuickstartRenderer()
    for name in QUICKSTART_FILES:
        texts[name] = quickstart.render(
            f"quickstart/{name}.new.jinja", {"rsrcdir": ".", "rbuilddir": "_build"}
        )
    return texts


def run(args: argparse.Namespace) -> int:
    directory: Path = args.directory
    names = (*TEMPLATES, *QUICKSTART_FILES)
    existing = [str(directory / name) for name in names if (directory / name).exists()]
    if existing and not args.force:
        print(
            "sphinx-trending init: refusing to overwrite "
            + ", ".join(existing)
            + " (use --force to replace them)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    cwd = Path.cwd()
    try:
        title, author = _checked_names(args)
        dataset, fmt = _read_sources(
            [entry if is_url(entry) else str(cwd / entry) for entry in args.source], args
        )
    except InitError as error:
        print(f"sphinx-trending init: {error}", file=sys.stderr)
        return EXIT_USAGE
    metric = _chosen_metric(dataset, args.metric)
    context = {
        "title": title,
        "author": author,
        "copyright": f"{date.today().year}, {author}",
        "source_name": args.name,
        "paths": [site_relative(entry, directory, cwd) for entry in args.source],
        "format": fmt,
        "metric": metric,
        "direction": metric_direction(metric, args.direction),
        "value_pattern": args.value_pattern,
        "value_keyword": args.value_keyword,
    }
    _report(dataset, args.source)
    texts = _rendered(context)
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        path = directory / name
        newline = QUICKSTART_FILES.get(name, "\n")
        with path.open("w", encoding="utf-8", newline=newline) as stream:
            stream.write(text)
        print(f"wrote {path}")
    print(
        f"build it with: make -C {directory} html  (or: python -m sphinx -M html {directory} "
        f"{directory / '_build'})"
    )
    return 0
