"""``sphinx-trending export``: the JSON Lines contract, problems and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sphinxcontrib_trending.cli import main
from tests.ingest.conftest import RF6, RF7_DAILY, expected

KEYS = [
    "job",
    "build",
    "time",
    "dut_version",
    "testbed",
    "test_id",
    "name",
    "suite",
    "tags",
    "status",
    "message",
    "start",
    "hosts",
    "metric",
    "unit",
    "values",
]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict], str]:
    code = main(["export", "--quiet", *argv])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_one_object_per_build_test_and_metric(capsys) -> None:
    code, rows, err = _run(capsys, str(RF7_DAILY))
    assert code == 0 and err == ""
    assert all(list(row) == KEYS for row in rows)
    truth = expected(RF7_DAILY)
    wanted = []
    for build in truth:
        for test_id, outcome in build["outcomes"].items():
            for metric, values in outcome["expected"].items() or [(None, [])]:
                wanted.append((build["build"], test_id, metric, values))
    got = [(row["build"], row["test_id"], row["metric"], row["values"]) for row in rows]
    assert sorted(got, key=str) == sorted(wanted, key=str)
    assert [row["time"] for row in rows] == sorted(row["time"] for row in rows)
    assert rows[0]["time"] == "2024-05-01T02:00:00+00:00"


def test_failed_test_is_one_object_without_metric(capsys) -> None:
    _code, rows, _err = _run(
        capsys, str(RF6 / "csit-vpp-perf-mrr-daily-master__517__output_info.xml")
    )
    failed = [row for row in rows if row["status"] == "FAIL"]
    assert len(failed) == 1
    assert failed[0]["metric"] is None and failed[0]["values"] == []
    assert failed[0]["message"] == "Traffic rate too low: 0 pps received"


def test_bad_input_exits_1_after_exporting_the_rest(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "job__1__output.xml"
    bad.write_text("<robot>\n<suite name='s'>\n<test name='t'>\n")
    code, rows, err = _run(capsys, str(bad), str(RF7_DAILY))
    assert code == 1
    assert len({row["build"] for row in rows}) == 6
    assert f"{bad}:4: malformed XML" in err and "[parse]" in err


def test_data_warnings_alone_keep_exit_0(tmp_path: Path, capsys) -> None:
    text = (RF6 / "csit-vpp-perf-mrr-daily-master__1120__output_info.xml").read_text()
    path = tmp_path / "job__1__output.xml"
    path.write_text(text.replace("23711010.0", "oops"))
    code, rows, err = _run(capsys, str(path))
    assert code == 0 and "'oops' is not a number" in err and "[data]" in err
    assert len(rows) == 4


def test_options_reach_the_reader(tmp_path: Path, capsys) -> None:
    code, rows, _err = _run(
        capsys,
        str(RF7_DAILY),
        "--version-pattern",
        r"VPP version: (\d+)",
        "--build-pattern",
        r"(?P<job>mrr-daily)-.*__(?P<build>\d+)__",
        "--cache-dir",
        str(tmp_path / "cache"),
    )
    assert code == 0
    assert {row["dut_version"] for row in rows} == {"24"}
    assert {row["job"] for row in rows} == {"mrr-daily"}
    assert (tmp_path / "cache" / "store" / "_manifest.json").is_file()


def test_testbed_options(capsys) -> None:
    weekly = str(RF7_DAILY.parent / "weekly")
    _code, rows, _err = _run(capsys, weekly, "--testbed-map", "10.30.51.17=lab-3")
    assert {row["testbed"] for row in rows} == {"lab-3"}
    _code, rows, _err = _run(capsys, weekly, "--testbed", r"\dn-\w+$")
    assert {row["testbed"] for row in rows} == {"3n-hsw"}


def test_csv_format(tmp_path: Path, capsys) -> None:
    path = tmp_path / "r.csv"
    path.write_text("test,build,time,values\nx,1,2024-01-01T00:00:00,1;2\n")
    code, rows, _err = _run(capsys, str(path), "--format", "csv")
    assert code == 0 and rows[0]["values"] == [1.0, 2.0] and rows[0]["metric"] == "mrr"


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["x", "--format", "xml"],
        ["x", "--build-pattern", "("],
        ["x", "--build-pattern", "no-groups"],
        ["x", "--testbed-map", "no-equals-sign"],
    ],
)
def test_usage_errors_exit_2(argv: list[str], capsys) -> None:
    try:
        code = main(["export", *argv])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    assert "error" in capsys.readouterr().err


def test_progress_goes_to_stderr(capsys) -> None:
    code = main(["export", str(RF7_DAILY)])
    out, err = capsys.readouterr()
    assert code == 0 and "parsed 1/6" in err and "parsed" not in out
