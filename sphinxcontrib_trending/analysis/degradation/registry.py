"""The methods by name: full names, Perun-style initials, and their options.

Strategies in conf.py and the CLI name a method as text (``aat`` or
``average_amount_threshold``) with options as plain values, so names are
resolved and options type-checked here, once, with messages that say which
name or option was wrong and what would have been right.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import aat, bmoe, significance
from .report import Report

Check = Callable[[str, np.ndarray, np.ndarray, Any], Report]


@dataclass(frozen=True)
class Method:
    """A degradation method: its name, its title, its options type and its check.

    ``name`` is the id that conf.py, the CLI and the JSON and CSV outputs
    use; ``title`` is what a reader of a table sees.  ``pairs`` says the
    samples are ``(workload, value)`` pairs rather than plain numbers.
    """

    name: str
    title: str
    options_type: type
    check: Check
    pairs: bool = False

    @property
    def initials(self) -> str:
        """First letter of each word of the name, as Perun abbreviates methods."""
        return "".join(word[0] for word in self.name.split("_"))

    @property
    def option_names(self) -> tuple[str, ...]:
        return tuple(field.name for field in dataclasses.fields(self.options_type))

    def make_options(self, options: Mapping[str, object]) -> Any:
        """Build the options object, rejecting unknown names and wrong types."""
        defaults = self.options_type()
        for key, value in options.items():
            if key not in self.option_names:
                raise ValueError(
                    f"method {self.name!r} has no option {key!r} "
                    f"(its options: {', '.join(self.option_names)})"
                )
            expected = type(getattr(defaults, key))
            if expected is float:
                valid = isinstance(value, int | float) and not isinstance(value, bool)
            else:
                valid = isinstance(value, expected)
            if not valid:
                raise ValueError(
                    f"option {key!r} of method {self.name!r} must be a {expected.__name__}, "
                    f"not {value!r}"
                )
        try:
            return self.options_type(**options)
        except ValueError as error:
            raise ValueError(f"method {self.name!r}: {error}") from None


METHODS = (
    Method(aat.NAME, "Average Amount Threshold", aat.AverageAmountThresholdOptions, aat.check),
    Method(
        bmoe.NAME,
        "Best Model Order Equality",
        bmoe.BestModelOrderEqualityOptions,
        bmoe.check,
        pairs=True,
    ),
    Method(
        significance.WELCH,
        "Welch's t-test",
        significance.SignificanceOptions,
        significance.check_welch,
    ),
    Method(
        significance.MANN_WHITNEY,
        "Mann-Whitney U test",
        significance.SignificanceOptions,
        significance.check_mann_whitney,
    ),
)


def resolve_method(name: str) -> Method:
    """The method called ``name`` (full name or initials, any case, ``-`` or ``_``)."""
    wanted = name.strip().lower().replace("-", "_").replace(" ", "_")
    for method in METHODS:
        if wanted in (method.name, method.initials):
            return method
    known = ", ".join(f"{method.name} ({method.initials})" for method in METHODS)
    raise ValueError(f"unknown degradation method {name!r}; known methods: {known}")


def method_title(name: str) -> str:
    """The words a table shows for the method ``name``; an id no method has is shown as it is."""
    try:
        return resolve_method(name).title
    except ValueError:
        return name


def verdict_words(result: str, method: str) -> str:
    """A result and the method that reached it, as a reader says it:
    ``Degradation, Welch's t-test``; the result alone when no method ran."""
    return f"{result}, {method_title(method)}" if method else result
