"""The reference's Parquet datasets as its ETL writes them, for tests.

FD.io CSIT's ETL (``csit.infra.etl/trending_*.py``, ``iterative_*.py``)
reads a day's test documents with a Spark schema, flattens nested fields
with ``_`` (``result.receive_rate.rate.values`` becomes
``result_receive_rate_rate_values``), sets ``job`` and ``build`` from the
document's path (as text), and writes through awswrangler with Spark's
defaults: snappy, ``start_time`` an INT96 timestamp, Hive partitions
``test_type=/year=/month=/day=`` with those columns left out of the files.
The schemas are read from the evaluation data (``csit/*.json``), so a
fixture has exactly the reference's column names and types.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from tests.shared_data import SHARED_DATA

SPARK_SCHEMAS = SHARED_DATA / "csit"

_ATOMS = {
    "string": pa.string(),
    "integer": pa.int32(),
    "long": pa.int64(),
    "double": pa.float64(),
    "boolean": pa.bool_(),
    "timestamp": pa.timestamp("ns"),
}
PARTITIONS = ("test_type", "year", "month", "day")
FROM_PATH = ("job", "build")
"""Columns the ETL sets from the document's path, as text, whatever the schema says."""


def _arrow(kind: Any) -> pa.DataType:
    if isinstance(kind, str):
        return _ATOMS[kind]
    if kind["type"] == "array":
        return pa.list_(_arrow(kind["elementType"]))
    raise ValueError(f"unexpected Spark type {kind!r}")


def _flattened(fields: list[dict[str, Any]], prefix: str = "") -> Iterator[pa.Field]:
    for field in fields:
        name = f"{prefix}{field['name']}"
        kind = field["type"]
        if isinstance(kind, dict) and kind["type"] == "struct":
            yield from _flattened(kind["fields"], f"{name}_")
        elif field["name"] in FROM_PATH and not prefix:
            yield pa.field(name, pa.string())
        else:
            yield pa.field(name, _arrow(kind))


def reference_schema(name: str) -> pa.Schema:
    """The columns of the reference's ``name`` dataset (``trending_mrr`` ...) in its files.

    A release's ``iterative_*`` or ``coverage_*`` schema the evaluation data
    lacks is made from the ``trending_*`` one, as :func:`_release_fields` says.
    """
    path = SPARK_SCHEMAS / f"{name}.json"
    kind, _, test_type = name.partition("_")
    if not path.is_file() and kind in ("iterative", "coverage"):
        trending = json.loads((SPARK_SCHEMAS / f"trending_{test_type}.json").read_text())
        fields = _release_fields(list(_flattened(trending["fields"])))
    else:
        fields = list(_flattened(json.loads(path.read_text())["fields"]))
    return pa.schema([f for f in fields if f.name not in PARTITIONS])


def _release_fields(trending: list[pa.Field]) -> list[pa.Field]:
    """The release datasets' columns from the trending ones: no ``telemetry``, ``tags``
    where ``message`` was, ``hosts`` after ``tg_version``.

    That is how ``csit.infra.etl/iterative_ndrpdr.json`` and ``coverage_ndrpdr.json``
    differ from ``trending_ndrpdr.json`` (and the mrr and soak ones likewise) at
    the reference's commit 78e52b9c8a; coverage and iterative are the same.
    """
    fields: list[pa.Field] = []
    hosts = next(field for field in trending if field.name == "hosts")
    for field in trending:
        if field.name in ("telemetry", "hosts"):
            continue
        fields.append(pa.field("tags", pa.list_(pa.string())) if field.name == "message" else field)
        if field.name == "tg_version":
            fields.append(hosts)
    return fields


def write_reference(root: Path, name: str, test_type: str, rows: list[dict[str, Any]]) -> Path:
    """``rows`` (columns by flattened name; absent ones null) as one file of the dataset.

    The partition is the day of the first row's ``start_time``, as the ETL
    writes a day's documents together.
    """
    schema = reference_schema(name)
    unknown = {key for row in rows for key in row} - set(schema.names)
    if unknown:
        raise KeyError(f"not columns of {name}: {sorted(unknown)}")
    day: datetime = rows[0]["start_time"]
    folder = root / f"test_type={test_type}" / f"year={day.year}" / f"month={day.month}"
    folder = folder / f"day={day.day}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{uuid.uuid4().hex}.snappy.parquet"
    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, path, compression="snappy", use_deprecated_int96_timestamps=True)
    return path
