"""Which sources a CLI command reads: a docs project's conf.py or paths given.

A CI gate must judge exactly what the published docs show, so ``--conf``
reads the project's conf.py the way Sphinx does (``sphinx.config.Config``
executes it, with Sphinx's working directory and ``tags``) and validates it
with the same :func:`~sphinxcontrib_trending.settings.validate`.  Sphinx is
imported only when ``--conf`` is used.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from sphinxcontrib_trending.cli.reading import (
    READING_OPTIONS,
    add_reading_arguments,
    metric_of,
    spec_from_args,
)
from sphinxcontrib_trending.ingest.cache_folder import usable
from sphinxcontrib_trending.settings import (
    DIRECTIONS,
    OPTIONS,
    ConfigIssue,
    Settings,
    Source,
    raw_values,
    validate,
)

DEFAULT_SOURCE_NAME = "results"

_PATH_ONLY = (*READING_OPTIONS, "unit", "direction")


class SourceError(Exception):
    """The sources cannot be determined: reported by the CLI with exit code 2."""


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "sources", "Either --conf DIR (the sources of a docs project) or archive paths."
    )
    group.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="archive file, folder, glob or URL (instead of --conf)",
    )
    group.add_argument(
        "--conf",
        type=Path,
        metavar="DIR",
        help="folder of a Sphinx project's conf.py whose trending_sources to read",
    )
    group.add_argument(
        "--source",
        action="append",
        default=[],
        metavar="NAME",
        help="with --conf: the source to read (repeatable; default: every source)",
    )
    group.add_argument(
        "--name",
        default=DEFAULT_SOURCE_NAME,
        help="with paths: the source's name, used in graph anchors (default: %(default)s)",
    )
    # The same options, names and meanings as ``sphinx-trending export``.
    add_reading_arguments(group)
    group.add_argument("--unit", help="unit of the values when the data does not say")
    group.add_argument(
        "--direction",
        choices=DIRECTIONS,
        help="higher or lower is better (default: the metric table's, else higher)",
    )


def writable_settings(
    args: argparse.Namespace, error: Callable[[str], None], warning: Callable[[str], None]
) -> Settings:
    """:func:`settings_from_args`, with no cache folder (and a ``warning``) where the
    given one cannot be written: a gate goes on without its cache."""
    settings = settings_from_args(args, warn=error)
    return replace(settings, cache_dir=usable(settings.cache_dir, warning))


def settings_from_args(args: argparse.Namespace, warn: Callable[[str], None]) -> Settings:
    """The settings the options ask for, holding the chosen sources only.

    With ``--conf`` they are conf.py's; every configuration issue goes to
    ``warn`` and is fatal (SourceError), because a gate that cannot read
    what it was told to judge must not pass.  With paths they are the
    defaults plus one source made of the reading options.
    """
    if args.conf is not None:
        if args.paths:
            raise SourceError("give either --conf DIR or archive paths, not both")
        given = [f"--{name.replace('_', '-')}" for name in _PATH_ONLY if getattr(args, name)]
        if given:
            raise SourceError(
                f"{', '.join(given)} {'apply' if len(given) > 1 else 'applies'} to archive "
                "paths only; with --conf the source's settings in conf.py are used"
            )
        settings, issues = read_conf(args.conf)
        return _from_settings(settings, issues, args, warn)
    if args.source:
        raise SourceError("--source NAME needs --conf DIR")
    if not args.paths:
        raise SourceError("give archive paths or --conf DIR")
    spec = spec_from_args(
        args.paths,
        args,
        # The judged metric also names CSV/JSONL rows that have no metric column.
        metric=metric_of(args),
        unit=args.unit,
        direction=args.direction,
    )
    return Settings(
        sources={args.name: Source(name=args.name, spec=spec)}, cache_dir=args.cache_dir
    )


def read_conf(confdir: Path) -> tuple[Settings, list[ConfigIssue]]:
    """Execute conf.py as Sphinx does and validate its ``trending_*`` values."""
    from sphinx.config import Config
    from sphinx.errors import ConfigError
    from sphinx.util.tags import Tags

    # Sphinx changes into confdir before it opens conf.py by the path given,
    # so a relative path must be made absolute first.
    confdir = confdir.resolve()
    try:
        config = Config.read(confdir, overrides={}, tags=Tags())
    except ConfigError as error:
        raise SourceError(f"cannot read {confdir / 'conf.py'}: {error}") from None
    for name, option in OPTIONS.items():
        config.add(name, option.fresh_default(), option.rebuild, option.types)
    return validate(raw_values(config), confdir)


def _from_settings(
    settings: Settings,
    issues: list[ConfigIssue],
    args: argparse.Namespace,
    warn: Callable[[str], None],
) -> Settings:
    conf = args.conf / "conf.py"
    for issue in issues:
        warn(f"error: {conf}: {issue}")
    if issues:
        raise SourceError(
            f"{conf}: {len(issues)} configuration error(s); the gate judges nothing until "
            "conf.py is fixed"
        )
    wanted = tuple(args.source) or tuple(settings.sources)
    if not settings.sources:
        raise SourceError(f"{conf} defines no usable trending_sources")
    unknown = [name for name in wanted if name not in settings.sources]
    if unknown:
        known = ", ".join(sorted(settings.sources))
        raise SourceError(
            f"unknown source(s) {', '.join(map(repr, unknown))} in {conf}; known: {known}"
        )
    return replace(
        settings,
        sources={name: settings.sources[name] for name in wanted},
        cache_dir=args.cache_dir or settings.cache_dir,
    )
