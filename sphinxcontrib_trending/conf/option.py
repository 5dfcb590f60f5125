"""The declaration of one conf.py value: everything that is said about it once."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from sphinxcontrib_trending.conf.issues import Checker, Invalid

Rebuild = Literal["env", "html", ""]
"""Sphinx's rebuild kinds: re-read the pages, re-write them, or nothing."""

Check = Callable[[Any, str, Checker], Any]
"""Turns an accepted value into its typed one; raises :class:`Invalid` if unusable."""


@dataclass(frozen=True)
class Option:
    """The declaration of one conf.py value (its name is ``trending_`` + field name)."""

    default: Any
    types: tuple[type, ...]
    check: Check
    rebuild: Rebuild
    help: str
    doc_type: str
    name: str = ""

    def fresh_default(self) -> Any:
        """A copy, so that no caller can change the declared default in place."""
        return copy.deepcopy(self.default)

    def accepts(self, value: Any) -> bool:
        """Whether the value has one of the declared types (None where that is the default)."""
        if value is None:
            return self.default is None
        if isinstance(value, bool) and bool not in self.types:
            return False
        return isinstance(value, self.types)

    def parse(self, value: Any, checker: Checker) -> Any:
        """The typed value; an unusable value is reported and the default used instead."""
        try:
            if not self.accepts(value):
                raise Invalid(f"expected {self.doc_type}, got {value!r}")
            return self.check(value, self.name, checker)
        except Invalid as error:
            checker.reject(self.name, f"{error}; using the default {self.default!r}")
            return self.check(self.fresh_default(), self.name, checker)


def declare(
    *,
    default: Any,
    types: tuple[type, ...],
    check: Check,
    rebuild: Rebuild,
    help: str,
    doc_type: str,
) -> dict[str, Option]:
    """Field metadata for one option; the name is filled in from the field's."""
    return {"option": Option(default, types, check, rebuild, help, doc_type)}
