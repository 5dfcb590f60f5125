"""What is wrong with a configuration, said so that the user can fix it."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ConfigIssue:
    """One rejected configuration value, reported with the key that holds it.

    Every issue means conf.py does not say what its author meant, so every
    one is an error for ``sphinx-trending check`` (exit code 2) and a
    ``trending.config`` warning in the build (which ``-W`` fails).  ``source``
    names the ``trending_sources`` entry concerned, if any.
    """

    key: str
    message: str
    source: str | None = None

    @property
    def option(self) -> str:
        """The conf.py name the key belongs to, e.g. ``trending_sources``."""
        return self.key.split("[", 1)[0]

    def __str__(self) -> str:
        return f"{self.key}: {self.message}"


class Invalid(ValueError):
    """A value that cannot be used at all: its option falls back to the default."""


def unknown_key_message(key: object, known: Sequence[str], what: str = "key") -> str:
    """Name the unknown key and the closest known one, as a typo usually is."""
    close = difflib.get_close_matches(str(key), known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown {what} {key!r}{hint} (known: {', '.join(known)})"


class Checker:
    """Collects issues while conf.py values are turned into typed ones."""

    def __init__(self, base_dir: Path) -> None:
        self.base_dir = base_dir
        self.issues: list[ConfigIssue] = []

    def reject(self, key: str, message: str, source: str | None = None) -> None:
        self.issues.append(ConfigIssue(key, message, source))

    def unknown_keys(
        self, key: str, given: Iterable[object], known: Sequence[str], source: str | None = None
    ) -> None:
        """Report each key of a dict value that nothing reads."""
        for unknown in sorted((k for k in given if k not in known), key=str):
            self.reject(f"{key}[{unknown!r}]", unknown_key_message(unknown, known), source)
