"""Every real CSIT test id, read as csit-json with the defaults, gets csit-dash's dimensions.

``../shared/data/csit/test_ids.jsonl.xz`` holds the (job, test id, testbed,
tags) rows CSIT's own suite generator makes for every daily, weekly and
report job.  Each row becomes a schema-valid test model document in a
``{job}/{build}/archives/`` archive, exactly as the CI publishes them; the
expected dimensions are computed here the way csit-dash computes them
(``cdash/trending/layout.py`` with ``utils.get_topo_arch`` and
``utils.get_drv_name``), independently of the package's rules.
"""

from __future__ import annotations

import io
import json
import lzma
import tarfile
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from sphinxcontrib_trending.ingest.dimensions import DIMENSIONS, rules_for
from tests.ingest.conftest import load_paths
from tests.ingest.test_csit_json import document
from tests.shared_data import SHARED_DATA

TEST_IDS = SHARED_DATA / "csit" / "test_ids.jsonl.xz"
CSIT_DASH_DRIVERS = ("avf", "af-xdp", "rdma", "dpdk", "mlx5", "octeon")
"""csit-dash's ``C.DRIVERS``, in its order: the first one in the case name wins."""
EXPORT_TEST_TYPES = (
    ("DEVICETEST", "device"),
    ("LDP_NGINX", "hoststack"),
    ("HOSTSTACK", "hoststack"),
    ("GSO_TRUE", "mrr"),
    ("GSO_FALSE", "mrr"),
    ("RECONF", "reconf"),
    ("SOAK", "soak"),
    ("NDRPDR", "ndrpdr"),
    ("MRR", "mrr"),
)
"""The tag that decides a document's ``test_type``, in the order CSIT's exporter tries them."""


@cache
def _rows() -> tuple[dict[str, Any], ...]:
    with lzma.open(TEST_IDS, "rt", encoding="utf-8") as lines:
        return tuple(json.loads(line) for line in lines)


def _test_type(tags: list[str]) -> str:
    return next(kind for tag, kind in EXPORT_TEST_TYPES if tag in tags)


def _csit_dash(job: str, test_id: str) -> dict[str, str]:
    """What csit-dash's trending layout derives from a row's job and test id."""
    job_parts = job.split("-")
    if "x" in job_parts[1:-1]:
        testbed = "-".join(job_parts[job_parts.index("x") + 1 :])
    else:
        testbed = "-".join(job_parts[-2:])
    *_, suite, case = test_id.split(".")
    for prefix in ("2n1l-", "1n1l-", "2n-"):
        suite = suite.replace(prefix, "")
    for driver in CSIT_DASH_DRIVERS:
        if driver in case:
            case = case.replace(f"{driver}-", "")
            break
    else:
        driver = "octeon" if testbed == "3n-oct" else "dpdk"
    frame_size, cores = case.split("-")[:2]
    return {
        "testbed": testbed,
        "nic": suite.split("-")[0],
        "driver": driver,
        "frame_size": frame_size,
        "cores": (cores or "8C").upper(),
    }


def _document(row: dict[str, Any]) -> dict[str, Any]:
    test_type = _test_type(row["tags"])
    found = document(test_type, name=row["test_id"].rpartition(".")[2])
    found.update(test_id=row["test_id"], tags=row["tags"], test_type=test_type)
    return found


def _archive(folder: Path, job: str, rows: list[dict[str, Any]]) -> Path:
    """One build of ``job`` as the CI packs it: a tar of its ``archives/`` tree."""
    path = folder / f"{job}.tar"
    with tarfile.open(path, "w") as packed:
        for number, row in enumerate(rows):
            body = json.dumps(_document(row)).encode()
            member = tarfile.TarInfo(f"{job}/1/archives/tests/{number}.info.json")
            member.size = len(body)
            packed.addfile(member, io.BytesIO(body))
    return path


@pytest.mark.shared_data("csit")
def test_every_real_id_gets_csit_dashs_dimensions_and_a_name_of_its_own(tmp_path: Path) -> None:
    rows = _rows()
    by_job: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_job[row["job"]].append(row)
    for job, job_rows in by_job.items():
        _archive(tmp_path, job, job_rows)
    dataset = load_paths(tmp_path, format="csit-json")
    assert dataset.problems == []
    rules = rules_for()
    expected = {(row["job"], row["test_id"]): row for row in rows}
    named: defaultdict[str, set[tuple[str | None, str]]] = defaultdict(set)
    wrong: list[str] = []
    read = 0
    for build in dataset.builds:
        for test in build.tests:
            read += 1
            row = expected[build.job, test.test_id]
            want = {**_csit_dash(build.job, test.test_id), "test_type": _test_type(row["tags"])}
            assert want["testbed"] == row["testbed"]  # the generator's own testbed agrees
            found = rules.derive(test, build.testbed)
            got = {name: found.value(name) for name in DIMENSIONS}
            if {name: (value or "").lower() for name, value in got.items()} != {
                name: value.lower() for name, value in want.items()
            }:
                wrong.append(f"{build.job} {test.test_id}: {got} != {want}")
            named[rules.display_name(test, build.testbed)].add((build.testbed, test.test_id))
    assert read == len(rows)
    assert wrong == []
    shared = {name: tests for name, tests in named.items() if len(tests) > 1}
    assert shared == {}
    assert len({test_id for _testbed, test_id in set().union(*named.values())}) == 7643
