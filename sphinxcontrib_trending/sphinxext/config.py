"""conf.py values: registration, validation at start-up, typed access.

Each ``trending_*`` value is registered as declared in
:mod:`sphinxcontrib_trending.conf.values`: with the types it accepts and
what changing it rebuilds.  Validation happens once, at ``config-inited``:
a bad value warns with its key and falls back to the default; an unusable
configuration (a source with no paths) leaves that source out with a warning
rather than aborting the whole site.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

from sphinxcontrib_trending.ingest.cache_folder import usable
from sphinxcontrib_trending.settings import OPTIONS, Settings, raw_values, validate
from sphinxcontrib_trending.sphinxext.warnings import warn

# Kept on the Config object (not pickled with it): directives reach the config
# without the application, and every process validates at config-inited.
_SETTINGS_ATTRIBUTE = "_trending_settings"

SECRETS = ("trending_webhook",)
"""Values only ``sphinx-trending check`` uses, which the build forgets once validated:
Sphinx pickles the configuration into the doctrees, and ``-b html`` keeps those
inside the folder people publish."""


def register(app: Sphinx) -> None:
    for name, option in OPTIONS.items():
        app.add_config_value(name, option.fresh_default(), option.rebuild, types=option.types)
    # Before Sphinx's own type check (priority 800), which must not warn twice.
    app.connect("config-inited", _validate, priority=400)


def _numbers_from_the_command_line(config: Config) -> None:
    """``-D trending_workers=2`` as the number it means.

    Sphinx converts a ``-D`` value by the type of its default, and a default
    of None (as ``trending_workers``'s) has none: the text would be refused
    and the default used.  Only ``-D`` values are converted; conf.py's stay
    as strict as they are.
    """
    for name, value in getattr(config, "_overrides", {}).items():
        option = OPTIONS.get(name)
        if option is None or not isinstance(value, str) or str in option.types:
            continue
        for number in (int, float):
            if number in option.types:
                try:
                    setattr(config, name, number(value))
                except ValueError:
                    continue
                break


def _validate(app: Sphinx, config: Config) -> None:
    _numbers_from_the_command_line(config)
    settings, issues = validate(raw_values(config), Path(app.confdir))
    for issue in issues:
        warn(f"configuration {issue}", "config")
    for problem in settings.excluded_runs.warnings:
        warn(problem, "config")
    for name, option in OPTIONS.items():
        if not option.accepts(getattr(config, name)):
            setattr(config, name, option.fresh_default())
    for name in SECRETS:
        setattr(config, name, None)
    settings = replace(settings, webhook=None)
    if settings.cache_dir is None:
        settings = replace(settings, cache_dir=default_cache_dir(app))
    cache_dir = usable(settings.cache_dir, lambda message: warn(message, "cache"))
    setattr(config, _SETTINGS_ATTRIBUTE, replace(settings, cache_dir=cache_dir))


def default_cache_dir(app: Sphinx) -> Path:
    """Beside the doctree folder, unless that would publish it with the HTML.

    ``sphinx-build -M html`` keeps doctrees in ``_build/doctrees``, so the
    cache goes to ``_build/trending-cache``; plain ``-b html`` keeps them in
    ``<outdir>/.doctrees``, inside the folder people publish, so the cache
    goes beside the output folder instead, named after it
    (``_build/html-trending-cache``) so that two outputs never share one.
    """
    doctrees = Path(app.doctreedir).resolve()
    outdir = Path(app.outdir).resolve()
    if doctrees == outdir or outdir in doctrees.parents:
        return outdir.parent / f"{outdir.name}-trending-cache"
    return doctrees.parent / "trending-cache"


def settings_of(config: Config) -> Settings:
    settings = getattr(config, _SETTINGS_ATTRIBUTE, None)
    if settings is None:
        raise RuntimeError("trending settings are read before config-inited validated them")
    return settings
