"""The csit-json format: CSIT JSON test model documents, one test each."""

from __future__ import annotations

import copy
import gzip
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest

from sphinxcontrib_trending.ingest.formats.csit_json import _validator
from sphinxcontrib_trending.ingest.metrics import METRICS
from tests.ingest.conftest import load_paths
from tests.latency_data import hdrh_of

JOB = "csit-vpp-perf-mrr-daily-master-2n-icx"


def _rate(value: float, unit: str = "pps", bandwidth: float | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {"rate": {"value": value, "unit": unit}}
    if bandwidth is not None:
        found["bandwidth"] = {"value": bandwidth, "unit": "bps"}
    return found


def _latency(base: int) -> dict[str, Any]:
    return {
        f"pdr_{load}": {
            "min": base,
            "avg": base + load,
            "max": base + 100,
            "hdrh": "",
            "unit": "us",
        }
        for load in (0, 10, 50, 90)
    }


RESULTS: dict[str, dict[str, Any]] = {
    "mrr": {
        "type": "mrr",
        "receive_rate": {
            "rate": {"values": [1e6, 3e6], "avg": 2e6, "stdev": 1e6, "unit": "pps"},
            "bandwidth": {"values": [5e8, 1.5e9], "avg": 1e9, "stdev": 5e8, "unit": "bps"},
        },
    },
    "ndrpdr": {
        "type": "ndrpdr",
        "ndr": {"lower": _rate(1e6, bandwidth=6e8), "upper": _rate(1.1e6)},
        "pdr": {"lower": _rate(2e6, bandwidth=1.2e9), "upper": _rate(2.1e6)},
        "latency_forward": _latency(10),
        "latency_reverse": _latency(20),
    },
    "soak": {"type": "soak", "critical_rate": {"lower": _rate(9e5), "upper": _rate(9.5e5)}},
    "reconf": {
        "type": "reconf",
        "aggregate_rate": _rate(1e6),
        "loss": {
            "packet": {"value": 2000, "unit": "packets"},
            "time": {"value": 0.002, "unit": "s"},
        },
    },
    "hoststack": {
        "type": "hoststack",
        "bandwidth": {"value": 4e9, "unit": "bps"},
        "rate": {"value": 5e4, "unit": "cps"},
        "completed_requests": {"value": 100, "unit": "requests"},
    },
    "unknown": {"type": "unknown"},
}


def document(kind: str, name: str | None = None, passed: bool = True) -> dict[str, Any]:
    """A test model document (version 1.5.1) of result type ``kind``."""
    test = name or f"64b-2t1c-ethip4-ip4base-{kind}"
    return {
        "duration": 12.5,
        "dut_type": "VPP",
        "dut_version": "24.06-rc0~123",
        "end_time": "2024-05-01T02:10:00.000Z",
        "hosts": ["10.30.51.21", "10.30.51.22"],
        "telemetry": [],
        "message": "" if passed else "Traffic failed",
        "passed": passed,
        "result": copy.deepcopy(RESULTS[kind]),
        "start_time": "2024-05-01T02:00:00.000Z",
        "tags": ["2T1C", "64B", kind.upper()],
        "test_documentation": "",
        "test_id": f"tests.vpp.perf.ip4.10ge2p1x710-ethip4-ip4base-{kind}.{test}",
        "test_name_long": f"10ge2p1x710-{test}",
        "test_name_short": test,
        "test_type": "device" if kind == "unknown" else kind,
        "tg_type": "TREX",
        "tg_version": "3.03",
        "version": "1.5.1",
    }


def write(folder: Path, doc: dict[str, Any], name: str | None = None) -> Path:
    path = folder / (name or f"{doc['test_name_short']}.info.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


def build_folder(root: Path, build: str = "123") -> Path:
    return root / "logs" / JOB / build / "archives" / "tests" / "vpp" / "perf"


@pytest.mark.parametrize("kind", sorted(RESULTS))
def test_every_fixture_document_is_valid_under_the_reference_schema(kind: str) -> None:
    assert list(_validator().iter_errors(document(kind))) == []


def _only_test(tmp_path: Path, kind: str):
    folder = build_folder(tmp_path)
    write(folder, document(kind))
    dataset = load_paths(tmp_path, format="csit-json")
    assert dataset.problems == []
    [build] = dataset.builds
    [test] = build.tests
    return build, test


def _values(test) -> dict[str, tuple[str, tuple[float, ...]]]:
    return {m.metric: (m.unit, m.values) for m in test.measurements}


def test_mrr_trials_are_the_runs_trials_and_bandwidth_is_kept(tmp_path: Path) -> None:
    build, test = _only_test(tmp_path, "mrr")
    assert _values(test) == {
        "mrr": ("pps", (1e6, 3e6)),
        "mrr_bandwidth": ("bps", (5e8, 1.5e9)),
    }
    assert (build.job, build.build) == (JOB, "123")
    assert build.dut_version == "24.06-rc0~123"
    assert (
        test.test_id
        == "tests.vpp.perf.ip4.10ge2p1x710-ethip4-ip4base-mrr.64b-2t1c-ethip4-ip4base-mrr"
    )
    assert test.name == "64b-2t1c-ethip4-ip4base-mrr"
    assert test.suite == "tests.vpp.perf.ip4.10ge2p1x710-ethip4-ip4base-mrr"
    assert test.thread_core == "2T1C"
    assert test.passed and test.start is not None and test.start.hour == 2
    assert test.attribute("dut_type") == "VPP"
    assert test.attribute("tg_type") == "TREX"
    assert test.attribute("hosts") == "10.30.51.21 10.30.51.22"


def test_ndrpdr_gives_bounds_bandwidths_and_latency_per_direction(tmp_path: Path) -> None:
    _, test = _only_test(tmp_path, "ndrpdr")
    values = _values(test)
    assert values["ndr"] == ("pps", (1e6,))
    assert values["pdr"] == ("pps", (2e6,))
    assert values["ndr_upper"] == ("pps", (1.1e6,))
    assert values["pdr_upper"] == ("pps", (2.1e6,))
    assert values["ndr_bandwidth"] == ("bps", (6e8,))
    assert values["pdr_bandwidth"] == ("bps", (1.2e9,))
    assert values["latency_pdr50_forward_avg"] == ("us", (60,))
    assert values["latency_pdr90_reverse_max"] == ("us", (120,))
    assert values["latency_pdr0_reverse_min"] == ("us", (20,))
    latency = {name for name in values if name.startswith("latency_")}
    assert len(latency) == 4 * 2 * 3
    assert set(values) <= set(METRICS)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("soak", {"soak_lower": ("pps", (9e5,)), "soak_upper": ("pps", (9.5e5,))}),
        (
            "reconf",
            {"reconf_loss": ("packets", (2000,)), "reconf_time_lost": ("s", (0.002,))},
        ),
        (
            "hoststack",
            {
                "hoststack_bps": ("bps", (4e9,)),
                "hoststack_rate": ("cps", (5e4,)),
                "hoststack_completed_requests": ("requests", (100,)),
            },
        ),
        ("unknown", {}),
    ],
)
def test_other_result_types_become_their_metrics(tmp_path: Path, kind: str, expected) -> None:
    _, test = _only_test(tmp_path, kind)
    assert _values(test) == expected
    assert set(expected) <= set(METRICS)
    assert test.passed


def test_the_tests_of_one_build_join_and_setup_files_are_not_tests(tmp_path: Path) -> None:
    folder = build_folder(tmp_path)
    write(folder, document("mrr"))
    write(folder / "l2", document("ndrpdr"))
    write(folder, document("unknown", passed=False))
    write(build_folder(tmp_path, "124"), document("mrr"))
    for name in ("suite.info.json", "setup.info.json", "teardown.info.json"):
        write(folder, {"not": "a test"}, name)
    dataset = load_paths(tmp_path, format="csit-json")
    assert dataset.problems == []
    assert [(b.job, b.build, len(b.tests)) for b in dataset.builds] == [
        (JOB, "123", 3),
        (JOB, "124", 1),
    ]
    failed = [t for t in dataset.builds[0].tests if not t.passed]
    assert [(t.status, t.message, t.measurements) for t in failed] == [
        ("FAIL", "Traffic failed", ())
    ]


def test_an_invalid_document_is_one_problem_with_its_json_path(tmp_path: Path) -> None:
    folder = build_folder(tmp_path)
    write(folder, document("mrr"))
    bad = document("ndrpdr")
    bad["result"]["pdr"]["lower"]["rate"]["value"] = -1
    bad_path = write(folder, bad)
    dataset = load_paths(tmp_path, format="csit-json")
    [problem] = dataset.problems
    assert problem.origin == str(bad_path)
    assert "$.result" in problem.message and "not a CSIT test model document" in str(problem)
    [build] = dataset.builds
    assert [t.name for t in build.tests] == ["64b-2t1c-ethip4-ip4base-mrr"]


def test_a_missing_field_names_the_document_root(tmp_path: Path) -> None:
    bad = document("mrr")
    del bad["dut_version"]
    path = write(tmp_path, bad)
    [problem] = load_paths(path, format="csit-json").problems
    assert "'dut_version' is a required property" in problem.message
    assert "at $:" in problem.message


def test_gzipped_documents_in_a_tar_archive_take_job_and_build_from_members(
    tmp_path: Path,
) -> None:
    member = f"{JOB}/77/archives/tests/x/64b-mrr.info.json.gz"
    payload = tmp_path / "payload.gz"
    payload.write_bytes(gzip.compress(json.dumps(document("mrr")).encode()))
    archive = tmp_path / "logs.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(payload, arcname=member)
        tar.add(payload, arcname=f"{JOB}/77/archives/tests/x/setup.info.json.gz")
    dataset = load_paths(archive, format="csit-json")
    assert dataset.problems == []
    assert [(b.job, b.build, len(b.tests)) for b in dataset.builds] == [(JOB, "77", 1)]


def test_without_archives_in_the_path_the_input_and_day_name_the_build(tmp_path: Path) -> None:
    folder = tmp_path / "nightly"
    write(folder, document("mrr"))
    write(folder, document("soak"))
    dataset = load_paths(folder, format="csit-json")
    assert dataset.problems == []
    assert [(b.job, b.build, len(b.tests)) for b in dataset.builds] == [("nightly", "20240501", 2)]


def test_a_user_build_pattern_is_used_when_the_path_has_no_archives(tmp_path: Path) -> None:
    path = write(tmp_path / "job-a__9", document("mrr"))
    dataset = load_paths(path, format="csit-json", build_pattern=r"(?P<job>[^/]+)__(?P<build>\d+)/")
    assert [(b.job, b.build) for b in dataset.builds] == [("job-a", "9")]


def test_the_same_test_twice_in_one_build_is_a_duplicate(tmp_path: Path) -> None:
    write(build_folder(tmp_path), document("mrr"))
    write(build_folder(tmp_path) / "again", document("mrr"))
    dataset = load_paths(tmp_path, format="csit-json")
    [problem] = dataset.problems
    assert problem.subtype == "duplicate"
    assert len(dataset.builds[0].tests) == 1


def test_an_older_1x_model_version_is_accepted_a_2x_is_not() -> None:
    older = document("mrr")
    older["version"] = "1.4.0"
    assert list(_validator().iter_errors(older)) == []
    newer = document("mrr")
    newer["version"] = "2.0.0"
    assert [error.json_path for error in _validator().iter_errors(newer)] == ["$.version"]


def test_the_parse_cache_gives_the_same_joined_build(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write(build_folder(data), document("mrr"))
    write(build_folder(data), document("ndrpdr"))
    first = load_paths(data, format="csit-json", cache_dir=tmp_path / "cache")
    again = load_paths(data, format="csit-json", cache_dir=tmp_path / "cache")
    assert again.parsed == [] and len(first.parsed) == 2
    assert again.builds == first.builds
    assert again.builds[0].tests[0].attribute("dut_type") == "VPP"


def test_gzipped_files_are_read_and_a_non_json_document_is_a_problem(tmp_path: Path) -> None:
    folder = build_folder(tmp_path)
    packed = folder / "64b-2t1c-ethip4-ip4base-soak.info.json.gz"
    packed.parent.mkdir(parents=True)
    packed.write_bytes(gzip.compress(json.dumps(document("soak")).encode()))
    broken = folder / "broken.info.json"
    broken.write_text("{not json")
    dataset = load_paths(tmp_path, format="csit-json")
    [problem] = dataset.problems
    assert problem.origin == str(broken) and problem.message.startswith("not JSON")
    assert [t.name for t in dataset.builds[0].tests] == ["64b-2t1c-ethip4-ip4base-soak"]


def _ndrpdr_with_histograms(forward_50: str) -> dict[str, Any]:
    doc = document("ndrpdr")
    doc["result"]["latency_forward"]["pdr_50"]["hdrh"] = forward_50
    doc["result"]["latency_reverse"]["pdr_90"]["hdrh"] = hdrh_of(*range(1, 1001))
    return doc


def test_latency_histograms_give_percentiles_and_are_kept(tmp_path: Path) -> None:
    forward = hdrh_of(*range(1, 101))
    write(build_folder(tmp_path), _ndrpdr_with_histograms(forward))
    dataset = load_paths(tmp_path, format="csit-json")
    assert dataset.problems == []
    [test] = dataset.builds[0].tests
    values = _values(test)
    assert values["latency_pdr50_forward_p50"] == ("us", (50.0,))
    assert values["latency_pdr50_forward_p90"] == ("us", (90.0,))
    assert values["latency_pdr50_forward_p99"] == ("us", (99.0,))
    assert values["latency_pdr50_forward_p999"] == ("us", (100.0,))
    assert values["latency_pdr90_reverse_p999"] == ("us", (999.0,))
    assert values["latency_pdr50_forward_avg"] == ("us", (60.0,))
    percentiles = {name for name in values if name.endswith(("_p50", "_p90", "_p99", "_p999"))}
    assert len(percentiles) == 2 * 4
    assert set(values) <= set(METRICS)
    assert test.attribute("latency_pdr50_forward_hdrh") == forward


def test_a_corrupt_histogram_is_a_data_problem_and_the_rest_is_read(tmp_path: Path) -> None:
    path = write(build_folder(tmp_path), _ndrpdr_with_histograms("HISTFAAAAgarbage"))
    dataset = load_paths(tmp_path, format="csit-json")
    [problem] = dataset.problems
    assert problem.subtype == "data"
    assert problem.origin == str(path)
    assert "64b-2t1c-ethip4-ip4base-ndrpdr" in problem.message
    assert "corrupt HDR histogram" in problem.message
    assert "latency_pdr50_forward" in problem.message
    [test] = dataset.builds[0].tests
    values = _values(test)
    assert values["latency_pdr50_forward_avg"] == ("us", (60.0,))
    assert values["ndr"] == ("pps", (1e6,))
    assert values["latency_pdr90_reverse_p50"] == ("us", (500.0,))
    assert "latency_pdr50_forward_p50" not in values
