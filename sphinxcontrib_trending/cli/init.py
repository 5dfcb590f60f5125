"""``sphinx-trending init DIR --source PATH``: a working trending site at once.

The templates in ``conf_templates/`` are rendered with Jinja2.  Existing
files are never overwritten unless ``--force`` is given, so running it in a
folder that holds somebody's work loses nothing.
"""

from __future__ import annotations

import argparse
import sys
from importlib.resources import files
from pathlib import Path
from typing import Any

import jinja2

from sphinxcontrib_trending.cli import EXIT_USAGE
from sphinxcontrib_trending.ingest.spec import FORMATS

TEMPLATES = ("conf.py", "index.rst", "dashboard.rst", "failed.rst", "graphs.rst")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "init",
        help="create a Sphinx trending site from templates",
        description="Create a ready-to-build Sphinx project with a dashboard, failed-tests "
        "table and trend graphs over the given archives.",
    )
    parser.add_argument("directory", type=Path, help="folder of the new project")
    parser.add_argument(
        "--source",
        action="append",
        required=True,
        metavar="PATH",
        help="archive file, folder, glob or URL (repeatable); relative paths are kept "
        "relative to the new project's folder",
    )
    parser.add_argument("--name", default="results", help="name of the source (default: results)")
    parser.add_argument("--title", default="Performance trending", help="site title")
    parser.add_argument("--format", choices=FORMATS, default="robot", help="input format")
    parser.add_argument("--force", action="store_true", help="overwrite existing files")
    parser.set_defaults(handler=run)


def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(files("sphinxcontrib_trending") / "conf_templates")),
        autoescape=False,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    # Values land in Python source: repr() makes any string a safe literal.
    environment.filters["pyrepr"] = repr
    return environment


def run(args: argparse.Namespace) -> int:
    directory: Path = args.directory
    targets = {name: directory / name for name in TEMPLATES}
    existing = [str(path) for path in targets.values() if path.exists()]
    if existing and not args.force:
        print(
            "sphinx-trending init: refusing to overwrite "
            + ", ".join(existing)
            + " (use --force to replace them)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    environment = _environment()
    context = {
        "title": args.title,
        "source_name": args.name,
        "paths": list(args.source),
        "format": args.format,
    }
    directory.mkdir(parents=True, exist_ok=True)
    for name, path in targets.items():
        path.write_text(environment.get_template(f"{name}.j2").render(context), encoding="utf-8")
        print(f"wrote {path}")
    print(f"build it with: python -m sphinx -b html {directory} {directory / '_build' / 'html'}")
    return 0
