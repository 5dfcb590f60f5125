"""CSIT JSON numbers Python reads exactly but the store cannot hold: reported, the rest kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.ingest import SourceSpec, load
from tests.hostile.documents import messages
from tests.ingest.test_csit_json import build_folder, document, write


def _reconf_with_loss(tmp_path: Path, loss: int) -> tuple[Path, Path]:
    """A build folder: a reconf test losing ``loss`` packets and a sound MRR test."""
    folder = build_folder(tmp_path / "in")
    bad = document("reconf")
    bad["result"]["loss"]["packet"]["value"] = loss
    return write(folder, bad), write(folder, document("mrr"))


@pytest.mark.parametrize("loss", [2**63, 2**64 - 1, 10**400])
def test_an_integer_beyond_64_bits_is_a_data_problem(tmp_path: Path, loss: int) -> None:
    bad, _good = _reconf_with_loss(tmp_path, loss)
    dataset = load(SourceSpec(paths=(str(tmp_path / "in"),), format="csit-json"))
    (build,) = dataset.builds
    metrics = {m.metric for test in build.tests for m in test.measurements}
    assert {"mrr", "reconf_time_lost"} <= metrics and "reconf_loss" not in metrics
    (problem,) = dataset.problems
    assert problem.origin == str(bad) and problem.subtype == "data"
    assert "-ethip4-ip4base-reconf: reconf_loss: value " in problem.message
    assert "does not fit a 64-bit integer; left out" in problem.message


def test_a_latency_beyond_64_bits_leaves_out_that_latency(tmp_path: Path) -> None:
    doc = document("ndrpdr")
    doc["result"]["latency_forward"]["pdr_50"]["max"] = 2**64
    write(build_folder(tmp_path / "in"), doc)
    dataset = load(SourceSpec(paths=(str(tmp_path / "in"),), format="csit-json"))
    (test,) = dataset.builds[0].tests
    metrics = {m.metric for m in test.measurements}
    assert "latency_pdr50_forward_max" not in metrics and "latency_pdr90_forward_max" in metrics
    assert "latency_pdr50_forward: value 18446744073709551616 does not fit" in messages(dataset)


def test_ingest_stores_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad, _good = _reconf_with_loss(tmp_path, 2**63)
    store = tmp_path / "store"
    code = main(["ingest", str(tmp_path / "in"), "--format", "csit-json", "--store", str(store)])
    assert code == 0  # a data problem: the input was read and stored
    assert f"{bad}: test " in capsys.readouterr().err
    stored = load(SourceSpec(paths=(str(store),), format="parquet"))
    metrics = {m.metric for test in stored.builds[0].tests for m in test.measurements}
    assert "mrr" in metrics and "reconf_loss" not in metrics
