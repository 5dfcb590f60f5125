"""The fast schema check accepts exactly what the full ``jsonschema`` validation accepts.

Every result type's valid document, and thousands of mutations of them
(a key dropped or added, a value of the wrong type, a negative count, an
empty string, a wrong constant ...) anywhere in the tree, are judged by both.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import fastjsonschema
import pytest

from sphinxcontrib_trending.ingest.formats.csit_json import _fast_check, _validator, schema_error
from tests.ingest.test_csit_json import RESULTS, document
from tests.latency_data import hdrh_of

REPLACEMENTS: tuple[Any, ...] = (
    None,
    True,
    0,
    -1,
    1.5,
    -0.5,
    "",
    "x",
    "2024-05-01T02:00:00Z",
    [],
    ["a"],
    [1],
    {},
    {"value": 1, "unit": "pps"},
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


def _mutated(original: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    doc = copy.deepcopy(original)
    path = rng.choice(_paths(doc))
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    action = rng.randrange(3)
    if action == 0 and isinstance(parent, dict):
        del parent[last]
    elif action == 1 and isinstance(parent, dict):
        parent[f"extra_{rng.randrange(3)}"] = rng.choice(REPLACEMENTS)
    else:
        parent[last] = copy.deepcopy(rng.choice(REPLACEMENTS))
    return doc


def _accepts_fully(doc: dict[str, Any]) -> bool:
    return _validator().is_valid(doc)


def _accepts_fast(doc: dict[str, Any]) -> bool:
    try:
        _fast_check()(doc)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def _with_histograms(kind: str) -> dict[str, Any]:
    doc = document(kind)
    if kind == "ndrpdr":
        doc["result"]["latency_forward"]["pdr_50"]["hdrh"] = hdrh_of(1, 2, 3)
    doc["telemetry"] = ["a 1 0", "b 2 0"]
    return doc


@pytest.mark.parametrize("kind", sorted(RESULTS))
def test_valid_documents_pass_both(kind: str) -> None:
    for doc in (document(kind), document(kind, passed=False), _with_histograms(kind)):
        assert _accepts_fully(doc) and _accepts_fast(doc)
        assert schema_error(doc) is None


@pytest.mark.parametrize("kind", sorted(RESULTS))
def test_mutations_are_judged_alike(kind: str) -> None:
    rng = random.Random(kind)
    original = _with_histograms(kind)
    rejected = 0
    for _ in range(300):
        doc = _mutated(original, rng)
        full = _accepts_fully(doc)
        assert _accepts_fast(doc) == full, doc
        assert (schema_error(doc) is None) == full
        rejected += not full
    assert rejected > 100  # the mutations do reach the schema's rules
