"""Our JSON documents through orjson, and the standard library where orjson refuses."""

from __future__ import annotations

import json

import pytest

from sphinxcontrib_trending.ingest.json_documents import json_bytes, json_value

DOCUMENTS = [
    {"inputs": {"k": {"input": "/results/job__1__output.xml.gz", "size": 12, "mtime_ns": 2**62}}},
    {"texts": ["é", "\u241b", ""], "numbers": [0.1, 1e-300, -2.5, 10**18]},
    {"odd": "name\udcff", "entries": {"mrr/odd\ud800": [1, "\udfff"]}},  # lone surrogates
]


@pytest.mark.parametrize("indented", [False, True])
@pytest.mark.parametrize("document", DOCUMENTS)
def test_a_document_reads_back_as_written(document: dict, indented: bool) -> None:
    data = json_bytes(document, indented=indented)
    assert json_value(data) == document == json.loads(data)
    assert (b"\n  " in data) is indented


def test_what_is_not_json_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        json_value(b'{"inputs": ')
