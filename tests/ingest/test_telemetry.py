"""A CSIT test's telemetry: OpenMetrics samples as series, bounded, bad input reported."""

from __future__ import annotations

import binascii
import json
import re
import zlib
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sphinxcontrib_trending.cli import main
from sphinxcontrib_trending.ingest import SourceSpec
from sphinxcontrib_trending.ingest.limits import ReadLimits
from sphinxcontrib_trending.ingest.metrics import (
    METRICS,
    MetricInfo,
    metric_direction,
    metric_unit,
)
from sphinxcontrib_trending.ingest.model import (
    Build,
    Measurement,
    TestResult,
    metrics_in,
    metrics_note,
)
from sphinxcontrib_trending.ingest.options import compile_options
from sphinxcontrib_trending.ingest.store.dataset import Query, read_store
from sphinxcontrib_trending.ingest.telemetry import (
    _plain_sample,
    _samples,
    differing_labels,
    matching_series,
    parse_label_matchers,
    read_telemetry,
    series_metric,
    split_series,
)
from tests.ingest.conftest import load_paths
from tests.ingest.test_csit_json import build_folder, document, write

CALLS = "calls_total{hostname='s55-t36-sut1',name='ip4-input',thread_id='1'} 1234.0 1714528800000"
"""A sample line as CSIT's exporter writes it: labels single-quoted, time in milliseconds."""
CALLS_METRIC = 'telemetry:calls_total{hostname="s55-t36-sut1",name="ip4-input",thread_id="1"}'


def compressed(lines: list[str]) -> str:
    """One string for all lines, as CSIT's newer exporter writes telemetry."""
    return binascii.b2a_base64(zlib.compress("\n".join(lines).encode(), 9), newline=False).decode()


def _read(entries: list[str], max_bytes: int = 1 << 20, max_series: int = 100):
    return read_telemetry(entries, max_bytes, max_series)


def test_each_name_and_label_set_is_one_series_with_its_values_as_trials() -> None:
    found = _read([CALLS, CALLS.replace("1234.0", "1500.0"), CALLS.replace("'1'", "'2'"), "up 1"])
    assert found.errors == ()
    assert [(m.metric, m.values) for m in found.measurements] == [
        (CALLS_METRIC, (1234.0, 1500.0)),
        (CALLS_METRIC.replace('"1"', '"2"'), (1234.0,)),
        ("telemetry:up", (1.0,)),
    ]


def test_the_compressed_form_reads_as_the_lines_do() -> None:
    lines = [CALLS, 'vectors{name="ip4-input"} 56 0']
    assert _read([compressed(lines)]) == _read(lines)
    assert len(_read(lines).measurements) == 2
    assert _read(["up 1"]).measurements == (Measurement("telemetry:up", "", (1.0,)),)


def test_the_series_metric_spells_labels_sorted_and_gives_them_back() -> None:
    metric = series_metric("x", {"b": 'say "hi"\\', "a": "1"})
    assert metric == 'telemetry:x{a="1",b="say \\"hi\\"\\\\"}'
    assert split_series(metric) == ("telemetry:x", {"a": "1", "b": 'say "hi"\\'})
    assert split_series("telemetry:x") == ("telemetry:x", {})
    assert split_series("mrr") == ("mrr", {})


def test_a_malformed_line_costs_only_itself() -> None:
    found = _read([CALLS, "broken{name='x' 3", "also broken", "up 1"])
    assert [m.metric for m in found.measurements] == [CALLS_METRIC, "telemetry:up"]
    [error] = found.errors
    assert "malformed sample line 'broken{name" in error
    assert "and 1 more" in error


def test_corrupt_compressed_telemetry_is_an_error_not_a_crash() -> None:
    good = compressed([CALLS])
    for bad in (good[:-12], "QUJD", "AAAA" * 10):
        found = _read([bad])
        assert found.measurements == ()
        [error] = found.errors
        assert "not base64 of zlib-compressed text" in error or "malformed" in error


def test_past_the_series_cap_the_first_are_kept_and_it_is_said() -> None:
    lines = [f"calls{{node='n{index}'}} {index} 0" for index in range(10)]
    found = _read(lines, max_series=3)
    assert [m.values for m in found.measurements] == [(0.0,), (1.0,), (2.0,)]
    [error] = found.errors
    assert "max_telemetry_series (3)" in error


def test_past_the_size_cap_nothing_is_read_and_it_is_said() -> None:
    lines = [f"calls{{node='n{index}'}} {index} 0" for index in range(1000)]
    for entries in (lines, [compressed(lines)]):
        found = _read(entries, max_bytes=1000)
        assert found.measurements == ()
        [error] = found.errors
        assert "max_telemetry_bytes (1,000 bytes)" in error


def test_a_sample_without_a_finite_value_is_left_out() -> None:
    found = _read(["a NaN", "b +Inf", "c 3"])
    assert [m.metric for m in found.measurements] == ["telemetry:c"]
    assert found.errors == ("telemetry: 2 sample(s) with no finite value left out",)


def test_unit_and_direction_come_from_the_metric_table_labels_aside(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert metric_unit(CALLS_METRIC) == ""  # a name the table does not know: none
    assert metric_direction(CALLS_METRIC) == "higher"
    clocks = MetricInfo("clocks", "lower", "CPU clocks a node spent")
    monkeypatch.setitem(METRICS, "telemetry:calls_total", clocks)
    assert metric_unit(CALLS_METRIC) == "clocks"
    assert metric_direction(CALLS_METRIC) == "lower"
    assert read_telemetry([CALLS], 1 << 20, 10).measurements[0].unit == "clocks"


def test_a_csit_document_s_telemetry_becomes_measurements(tmp_path: Path) -> None:
    doc = document("mrr")
    doc["telemetry"] = [compressed([CALLS, "up 1"])]
    failed = document("mrr", name="64b-2t1c-failed-mrr", passed=False)
    failed["telemetry"] = [CALLS]
    folder = build_folder(tmp_path)
    write(folder, doc)
    write(folder, failed)
    dataset = load_paths(tmp_path, format="csit-json")
    assert dataset.problems == []
    tests = {test.name: test for test in dataset.builds[0].tests}
    passed = tests[doc["test_name_short"]]
    assert passed.measurement(CALLS_METRIC).values == (1234.0,)
    assert passed.measurement("mrr").values == (1e6, 3e6)
    assert passed.attribute("telemetry") is None
    assert tests["64b-2t1c-failed-mrr"].measurements == ()


def test_bad_telemetry_is_a_data_problem_naming_file_and_test(tmp_path: Path) -> None:
    doc = document("mrr")
    doc["telemetry"] = [CALLS, "not a sample line {"]
    path = write(build_folder(tmp_path), doc)
    dataset = load_paths(tmp_path, format="csit-json")
    [problem] = dataset.problems
    assert problem.subtype == "data"
    assert problem.origin == str(path)
    assert doc["test_id"] in problem.message
    assert "malformed sample line" in problem.message
    [test] = dataset.builds[0].tests
    assert test.measurement(CALLS_METRIC) is not None
    assert test.measurement("mrr") is not None


def test_the_telemetry_caps_are_source_limits(tmp_path: Path) -> None:
    doc = document("mrr")
    doc["telemetry"] = [f"calls{{node='n{index}'}} {index} 0" for index in range(5)]
    write(build_folder(tmp_path), doc)
    limits = ReadLimits(max_telemetry_series=2)
    dataset = load_paths(tmp_path, format="csit-json", limits=limits)
    [test] = dataset.builds[0].tests
    assert [m.metric for m in test.measurements if m.metric.startswith("telemetry:")] == [
        'telemetry:calls{node="n0"}',
        'telemetry:calls{node="n1"}',
    ]
    [problem] = dataset.problems
    assert "max_telemetry_series (2)" in problem.message


def test_export_writes_name_and_labels_and_reads_back_as_the_same_series(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = document("mrr")
    doc["telemetry"] = [CALLS, CALLS.replace("'1'", "'2'")]
    write(build_folder(tmp_path / "in"), doc)
    assert main(["export", "--quiet", "--format", "csit-json", str(tmp_path / "in")]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    telemetry = [record for record in records if record["metric"] == "telemetry:calls_total"]
    assert [record["labels"]["thread_id"] for record in telemetry] == ["1", "2"]
    assert telemetry[0]["labels"] == {
        "hostname": "s55-t36-sut1",
        "name": "ip4-input",
        "thread_id": "1",
    }
    assert all("labels" not in record for record in records if record["metric"] == "mrr")
    exported = tmp_path / "export.jsonl"
    exported.write_text("".join(json.dumps(record) + "\n" for record in records))
    again = load_paths(exported, format="jsonl")
    assert again.problems == []
    [test] = again.builds[0].tests
    assert test.measurement(CALLS_METRIC).values == (1234.0,)
    assert test.measurement(CALLS_METRIC.replace('"1"', '"2"')).values == (1234.0,)


def test_label_matchers_select_by_value_regex_and_absence() -> None:
    metrics = [
        'telemetry:calls{name="ip4-input",thread="1"}',
        'telemetry:calls{name="ip4-input",thread="2"}',
        'telemetry:calls{name="ip6-input"}',
        'telemetry:callsx{name="ip4-input",thread="1"}',
        "mrr",
    ]
    matchers = parse_label_matchers("name=~ip4-.* thread=~1|2")
    assert matching_series(metrics, "telemetry:calls", matchers) == metrics[:2]
    assert matching_series(metrics, "telemetry:calls", parse_label_matchers("thread=")) == [
        metrics[2]
    ]
    assert matching_series(metrics, 'telemetry:calls{thread="2"}', ()) == [metrics[1]]
    assert differing_labels(metrics[:3]) == {"name": ["ip4-input", "ip6-input"],
                                             "thread": ["", "1", "2"]}  # fmt: skip
    for bad in ("thread", "=1", "a=~["):
        with pytest.raises(ValueError, match=re.escape(repr(bad))):
            parse_label_matchers(bad)


def test_corrupt_compressed_telemetry_in_a_document_is_a_data_problem(tmp_path: Path) -> None:
    doc = document("mrr")
    doc["telemetry"] = [compressed([CALLS] * 50)[:-30]]
    path = write(build_folder(tmp_path), doc)
    dataset = load_paths(tmp_path, format="csit-json")
    [problem] = dataset.problems
    assert (problem.subtype, problem.origin) == ("data", str(path))
    assert f"test {doc['test_id']}: telemetry: not base64 of zlib-compressed" in problem.message
    [test] = dataset.builds[0].tests
    assert test.measurement("mrr").values == (1e6, 3e6)


_NAMES = st.from_regex(r"[a-zA-Z_:][a-zA-Z0-9_:]{0,8}", fullmatch=True)
_KEYS = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,5}", fullmatch=True)
_VALUES = st.text(alphabet='ab1 ,={}"\\\n-.', max_size=6)
_NUMBERS = st.sampled_from(["1", "-2.5", "1e3", ".5", "3.", "NaN", "+Inf", "1_0", "0x1", "", "x"])


@given(
    name=_NAMES,
    labels=st.lists(st.tuples(_KEYS, _VALUES), max_size=3),
    number=_NUMBERS,
    timestamp=st.sampled_from(["", " 1714528800000", " -5", " 1.5", " x"]),
    braces=st.booleans(),
    comma=st.booleans(),
)
@example(name=":", labels=[("__", "")], number="1", timestamp="", braces=False, comma=False)
def test_the_plain_form_is_read_as_the_parser_reads_it(
    name: str, labels: list, number: str, timestamp: str, braces: bool, comma: bool
) -> None:
    """Whatever line the fast path takes, the parser gives the same sample."""
    quoted = ",".join(f'{key}="{value}"' for key, value in labels) + ("," if comma else "")
    line = f"{name}{{{quoted}}}" if braces or labels else name
    line += f" {number}{timestamp}"
    plain = _plain_sample(line)
    if plain is None:
        return
    assert [plain] == _samples(line + "\n")


def test_telemetry_series_come_back_from_the_results_store_as_parsed(tmp_path: Path) -> None:
    doc = document("mrr")
    doc["telemetry"] = [compressed([CALLS, CALLS.replace("'1'", "'2'"), "up 1"])]
    write(build_folder(tmp_path / "in"), doc)
    cache = tmp_path / "cache"
    parsed = load_paths(tmp_path / "in", format="csit-json", cache_dir=cache)
    stored = load_paths(tmp_path / "in", format="csit-json", cache_dir=cache)
    assert stored.parsed == [] and parsed.parsed != []
    assert stored.builds == parsed.builds
    [test] = stored.builds[0].tests
    assert test.measurement(CALLS_METRIC.replace('"1"', '"2"')).values == (1234.0,)


def test_the_note_of_metrics_in_the_data_lists_a_telemetry_name_once() -> None:
    series = [
        Measurement(series_metric("calls", {"thread": str(thread)}), "", (1.0,))
        for thread in range(3)
    ]
    test = TestResult(
        "s.t", "t", "s", (), "PASS", None, "", (*series, Measurement("mrr", "pps", (1.0,)))
    )
    build = Build(
        "job", "1", datetime(2024, 5, 1, tzinfo=timezone.utc), None, None, "here", (test,)
    )
    assert metrics_note([build]) == "metrics in the data: mrr, telemetry:calls (3 label sets)"


def test_a_store_read_of_a_telemetry_name_reads_its_every_series(tmp_path: Path) -> None:
    doc = document("mrr")
    doc["telemetry"] = [CALLS, CALLS.replace("'1'", "'2'"), "up 1"]
    write(build_folder(tmp_path / "in"), doc)
    store = tmp_path / "store"
    assert (
        main(
            [
                "ingest",
                "--quiet",
                "--format",
                "csit-json",
                str(tmp_path / "in"),
                "--store",
                str(store),
            ]
        )
        == 0
    )
    options = compile_options(SourceSpec(paths=(), format="parquet"))
    found = read_store(str(store), options, Query(metrics=("telemetry:calls_total",)))
    [test] = found.builds[0].tests
    assert [m.metric for m in test.measurements] == [
        CALLS_METRIC,
        CALLS_METRIC.replace('"1"', '"2"'),
    ]


def test_the_metrics_of_a_store_read_are_listed_without_making_its_tests(tmp_path: Path) -> None:
    doc = document("mrr")
    doc["telemetry"] = [CALLS, "up 1"]
    write(build_folder(tmp_path / "in"), doc)
    cache = tmp_path / "cache"
    parsed = load_paths(tmp_path / "in", format="csit-json", cache_dir=cache)
    stored = load_paths(tmp_path / "in", format="csit-json", cache_dir=cache)
    assert metrics_in(stored.builds) == metrics_in(parsed.builds)
    assert CALLS_METRIC in metrics_in(stored.builds)
    assert all(build.tests._made is None for build in stored.builds)
