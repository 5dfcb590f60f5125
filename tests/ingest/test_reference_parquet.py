"""The reference's Parquet datasets, read whole: written in its ETL's exact Spark schemas.

Each fixture file has the columns and types of ``csit.infra.etl/trending_*.json``
or ``iterative_*.json`` flattened as the ETL flattens them, an INT96
``start_time`` and the ETL's partition folders (see ``tests/reference_parquet.py``).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.tagfilter import compile_filter
from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.ingest import SourceSpec, load
from sphinxcontrib_trending.ingest.limits import ReadLimits
from sphinxcontrib_trending.ingest.options import compile_options
from sphinxcontrib_trending.ingest.store.dataset import Query, read_store
from tests.ingest.test_telemetry import compressed
from tests.latency_data import hdrh_of
from tests.reference_parquet import reference_schema, write_reference

pytestmark = pytest.mark.shared_data("csit")

JOB = "csit-vpp-perf-mrr-daily-master-2n-icx"
MRR_TEST = "tests.vpp.perf.ip4.2n1l-25ge2p1xxv710-ethip4-ip4base-mrr.64b-2t1c-ethip4-ip4base-mrr"
NDR_TEST = MRR_TEST.replace("mrr", "ndrpdr")
SOAK_TEST = MRR_TEST.replace("mrr", "soak")
OPTIONS = compile_options(SourceSpec(paths=(), format="parquet"))


def _telemetry_lines(threads: int = 4, nodes: int = 300) -> list[str]:
    """What one CSIT test's telemetry holds: a counter per node and worker, as exported."""
    return [
        f"calls_total{{hostname='s55-t36-sut1',hook='/run/vpp/cli-dut1.sock',rate='',"
        f"name='node-{node}',state='active',thread_id='{thread}',thread_lcore='{thread + 1}',"
        f"thread_name='vpp_wk_{thread}'}} {node * 1000 + thread}.0 1717383600000"
        for node in range(nodes)
        for thread in range(threads)
    ]


def _head(test_id: str, build: str, day: int, passed: bool = True, **extra: object) -> dict:
    return {
        "job": JOB,
        "build": build,
        "duration": 12.5,
        "dut_type": "VPP",
        "dut_version": f"24.10-rc0~{build}",
        "hosts": ["10.30.51.49", "10.30.51.50"],
        "tg_type": "TREX",
        "tg_version": "3.03",
        "start_time": datetime(2024, 6, day, 3, 0, 7),
        "passed": passed,
        "test_id": test_id,
        "test_name_long": "2n1l-25ge2p1xxv710-" + test_id.rpartition(".")[2],
        "test_name_short": test_id.rpartition(".")[2],
        "version": "1.1.0",
        **extra,
    }


def _mrr(build: str, day: int, **extra: object) -> dict:
    return _head(
        MRR_TEST,
        build,
        day,
        result_type="mrr",
        result_receive_rate_rate_values=[1.0e7, 1.1e7],
        result_receive_rate_rate_avg=1.05e7,
        result_receive_rate_rate_stdev=0.05e7,
        result_receive_rate_rate_unit="pps",
        **{"message": "", **extra},
    )


def test_the_fixture_has_the_reference_s_columns_and_an_int96_start_time(tmp_path: Path) -> None:
    path = write_reference(tmp_path, "trending_ndrpdr", "ndrpdr", [_head(NDR_TEST, "1", 3)])
    parquet = pq.ParquetFile(path)
    assert (
        parquet.schema.column(parquet.schema_arrow.get_field_index("start_time")).physical_type
        == "INT96"
    )
    names = parquet.schema_arrow.names
    assert "result_latency_forward_pdr_50_hdrh" in names and "telemetry" in names
    assert "tags" in reference_schema("iterative_mrr").names
    assert "tags" not in names


def test_a_trending_dataset_is_read_whole(tmp_path: Path) -> None:
    lines = _telemetry_lines()
    telemetry = [compressed(lines)]
    assert len(telemetry[0]) > 4096  # far over the old text cap: parsed before any cut
    write_reference(tmp_path, "trending_mrr", "mrr", [_mrr("101", 3, telemetry=telemetry)])
    dataset = load(SourceSpec(paths=(str(tmp_path),), format="parquet"))
    assert dataset.problems == []
    [build] = dataset.builds
    [test] = build.tests
    assert build.time == datetime(2024, 6, 3, 3, 0, 7, tzinfo=timezone.utc)
    assert test.measurement("mrr").values == (1.0e7, 1.1e7)
    series = [m for m in test.measurements if m.metric.startswith("telemetry:")]
    assert len(series) == len(lines)
    worker = 'telemetry:calls_total{hook="/run/vpp/cli-dut1.sock",hostname="s55-t36-sut1",'
    worker += 'name="node-7",rate="",state="active",thread_id="2",thread_lcore="3",'
    worker += 'thread_name="vpp_wk_2"}'
    assert test.measurement(worker).values == (7002.0,)


def test_an_int96_dataset_exports_where_it_exited_70(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_reference(tmp_path, "trending_mrr", "mrr", [_mrr("101", 3, message="a note")])
    assert main(["export", "--quiet", "--format", "parquet", str(tmp_path)]) == 0
    [record] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert record["start"] == "2024-06-03T03:00:07+00:00"
    assert record["message"] == "a note"


def test_ndrpdr_latency_histograms_become_percentiles_and_are_kept(tmp_path: Path) -> None:
    row = _head(
        NDR_TEST,
        "7",
        4,
        result_type="ndrpdr",
        result_ndr_lower_rate_value=11e6,
        result_ndr_lower_rate_unit="pps",
        result_pdr_lower_rate_value=12e6,
        result_pdr_lower_rate_unit="pps",
        result_latency_forward_pdr_50_min=7,
        result_latency_forward_pdr_50_avg=9,
        result_latency_forward_pdr_50_max=12,
        result_latency_forward_pdr_50_unit="us",
        result_latency_forward_pdr_50_hdrh=hdrh_of(7, 9, 9, 12),
        message="",
    )
    write_reference(tmp_path, "trending_ndrpdr", "ndrpdr", [row])
    dataset = load(SourceSpec(paths=(str(tmp_path),), format="parquet"))
    assert dataset.problems == []
    [test] = dataset.builds[0].tests
    values = {m.metric: m.values for m in test.measurements}
    assert values["latency_pdr50_forward_avg"] == (9.0,)
    assert values["latency_pdr50_forward_p50"] == (9.0,)
    assert values["latency_pdr50_forward_p999"] == (12.0,)
    assert test.attribute("latency_pdr50_forward_hdrh") == hdrh_of(7, 9, 9, 12)


def test_a_soak_dataset_is_read(tmp_path: Path) -> None:
    row = _head(
        SOAK_TEST,
        "9",
        5,
        result_type="soak",
        result_critical_rate_lower_rate_value=9e6,
        result_critical_rate_lower_rate_unit="pps",
        message="",
    )
    write_reference(tmp_path, "trending_soak", "soak", [row])
    dataset = load(SourceSpec(paths=(str(tmp_path),), format="parquet"))
    assert dataset.problems == []
    assert dataset.builds[0].tests[0].measurement("soak_lower").values == (9e6,)


def test_an_iterative_dataset_keeps_its_tags_so_tag_filters_apply(tmp_path: Path) -> None:
    tagged = _mrr("55", 6, tags=["2T1C", "64B", "MRR", "IP4FWD", "DRV_AVF"])
    del tagged["message"]
    other = _mrr("56", 7, tags=["2T1C", "64B", "MRR", "IP4FWD", "DRV_VFIO_PCI"])
    del other["message"]
    other["test_id"] = MRR_TEST.replace("ip4base", "ip4scale20k")
    write_reference(tmp_path, "iterative_mrr", "mrr", [tagged])
    write_reference(tmp_path, "iterative_mrr", "mrr", [other])
    dataset = load(SourceSpec(paths=(str(tmp_path),), format="parquet"))
    assert dataset.problems == []
    tests = [build.tests[0] for build in dataset.builds]
    assert tests[0].tags == ("2T1C", "64B", "MRR", "IP4FWD", "DRV_AVF")
    assert tests[0].thread_core == "2T1C"
    avf = compile_filter("mrr and drv_avf")
    assert [h.test_id for h in histories(dataset.builds, "mrr") if avf(h.tags)] == [MRR_TEST]


def test_a_read_of_one_metric_leaves_telemetry_unread_and_a_telemetry_read_keeps_its_series(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _telemetry_lines(threads=2, nodes=2)
    write_reference(tmp_path, "trending_mrr", "mrr", [_mrr("101", 3, telemetry=lines)])
    asked: list[list[str]] = []
    real = pq.ParquetFile.read

    def recording(self, columns=None, **kwargs):
        asked.append(list(columns))
        return real(self, columns=columns, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "read", recording)
    found = read_store(str(tmp_path), OPTIONS, Query(metrics=("mrr",)))
    assert [m.metric for m in found.builds[0].tests[0].measurements] == ["mrr"]
    assert "telemetry" not in asked[-1]
    found = read_store(str(tmp_path), OPTIONS, Query(metrics=("telemetry:calls_total",)))
    assert "telemetry" in asked[-1]
    kept = [m.metric for m in found.builds[0].tests[0].measurements]
    assert len(kept) == 4 and all(m.startswith("telemetry:calls_total{") for m in kept)


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ({"telemetry": [compressed(_telemetry_lines())[:-40]]}, "not base64 of zlib-compressed"),
        ({"telemetry": ["QUJDRA=="]}, "not base64 of zlib-compressed"),
        ({"telemetry": ["calls{name='x'} 1 0", "calls{name= 2 0"]}, "malformed sample line"),
        (
            {"telemetry": [f"calls{{node='n{index}'}} {index} 0" for index in range(30)]},
            "max_telemetry_series (20)",
        ),
    ],
)
def test_bad_telemetry_in_a_row_is_a_data_problem_and_the_row_is_kept(
    tmp_path: Path, extra: dict, said: str
) -> None:
    path = write_reference(tmp_path, "trending_mrr", "mrr", [_mrr("101", 3, **extra)])
    limits = ReadLimits(max_telemetry_series=20)
    spec = SourceSpec(paths=(str(tmp_path),), format="parquet", limits=limits)
    dataset = load(spec)
    [problem] = dataset.problems
    assert problem.subtype == "data"
    assert problem.origin == str(path)
    assert f"test {MRR_TEST}: telemetry" in problem.message
    assert said in problem.message
    [test] = dataset.builds[0].tests
    assert test.measurement("mrr").values == (1.0e7, 1.1e7)


def test_an_undecodable_histogram_in_a_row_is_a_data_problem_and_the_row_is_kept(
    tmp_path: Path,
) -> None:
    row = _head(
        NDR_TEST,
        "7",
        4,
        result_ndr_lower_rate_value=11e6,
        result_ndr_lower_rate_unit="pps",
        result_latency_forward_pdr_50_avg=9,
        result_latency_forward_pdr_50_unit="us",
        result_latency_forward_pdr_50_hdrh="HISTFAAAAnotahistogram",
        result_latency_reverse_pdr_50_hdrh=hdrh_of(5, 6),
        message="",
    )
    path = write_reference(tmp_path, "trending_ndrpdr", "ndrpdr", [row])
    dataset = load(SourceSpec(paths=(str(tmp_path),), format="parquet"))
    [problem] = dataset.problems
    assert (problem.subtype, problem.origin) == ("data", str(path))
    assert f"test {NDR_TEST}: corrupt HDR histogram" in problem.message
    assert "latency_pdr50_forward" in problem.message
    [test] = dataset.builds[0].tests
    values = {m.metric: m.values for m in test.measurements}
    assert values["ndr"] == (11e6,) and values["latency_pdr50_forward_avg"] == (9.0,)
    assert values["latency_pdr50_reverse_p50"] == (5.0,)
    assert "latency_pdr50_forward_p50" not in values
