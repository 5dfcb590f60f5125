"""Model objects to and from plain JSON values: problems in the store's manifest,
a test's fields in ``export``.

JSON rather than pickle: a store can be shared or planted, and loading it must
never run code.  Reading is strict: a value of the wrong type raises
``TypeError`` instead of being coerced, so an edited manifest is re-parsed
rather than trusted.
"""

from __future__ import annotations

from typing import Any

from sphinxcontrib_trending.ingest.model import Problem, TestResult


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, found {type(value).__name__}")
    return value


def result_fields(test: TestResult) -> dict[str, Any]:
    """The descriptive fields of a test result, as ``export`` writes them."""
    return {
        "test_id": test.test_id,
        "name": test.name,
        "suite": test.suite,
        "tags": list(test.tags),
        "status": test.status,
        "message": test.message,
        "start": None if test.start is None else test.start.isoformat(),
    }


def problem_to_json(problem: Problem) -> dict[str, Any]:
    return {
        "origin": problem.origin,
        "message": problem.message,
        "subtype": problem.subtype,
        "line": problem.line,
    }


def problem_from_json(data: dict[str, Any]) -> Problem:
    line = data["line"]
    if line is not None and (isinstance(line, bool) or not isinstance(line, int)):
        raise TypeError(f"expected a line number, found {type(line).__name__}")
    return Problem(
        origin=_string(data["origin"]),
        message=_string(data["message"]),
        subtype=_string(data["subtype"]),
        line=line,
    )
