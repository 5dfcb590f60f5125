"""Streaming: parsing memory does not grow with the size of the document."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

MEASURE = """
import json, re, resource, sys
from sphinxcontrib_trending.ingest.robot import read_robot
pattern = re.compile(r"VPP [Vv]ersion:\\s*(?P<version>\\S+)")
read_robot(open(sys.argv[2], "rb"), "warm-up", version_pattern=pattern)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
run = read_robot(open(sys.argv[1], "rb"), "big", version_pattern=pattern)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
report = {"growth_kib": after - before, "tests": len(run.tests), "problems": len(run.problems)}
print(json.dumps(report))
"""


def _write_log_heavy_output(path: Path, tests: int, messages_per_test: int) -> None:
    """RF 7 output whose bulk is keyword logs, as in real CI archives."""
    line = "x" * 300
    status = '<status status="PASS" start="2024-05-01T01:00:00.000001" elapsed="0.001"/>'
    message = (
        '<kw name="Log" owner="BuiltIn"><msg time="2024-05-01T01:00:00.000001" level="INFO">'
        f"{line}</msg>{status}</kw>\n"
    )
    body = message * messages_per_test
    with path.open("w") as out:
        out.write(
            '<?xml version="1.0" encoding="UTF-8"?>\n<robot generated="2024-05-01T01:00:00.000000" '
            'schemaversion="5">\n<suite id="s1" name="Tests">\n'
        )
        for number in range(tests):
            out.write(
                f'<test id="s1-t{number}" name="tc01-t{number}">\n{body}<tag>MRR</tag>'
                '<status status="PASS" start="2024-05-01T01:00:00.000000" elapsed="1.0">'
                "Maximum Receive Rate trial results in packets per second: [1.0, 2.0]"
                "</status>\n</test>\n"
            )
        out.write(
            '<status status="PASS" start="2024-05-01T01:00:00.000000" elapsed="9.0"/>\n'
            "</suite>\n</robot>\n"
        )


@pytest.mark.slow
def test_parse_memory_is_bounded_by_one_test_not_by_the_file(tmp_path: Path) -> None:
    small, big = tmp_path / "small.xml", tmp_path / "big.xml"
    _write_log_heavy_output(small, tests=5, messages_per_test=200)
    _write_log_heavy_output(big, tests=1000, messages_per_test=200)
    size_kib = big.stat().st_size // 1024
    completed = subprocess.run(
        [sys.executable, "-c", MEASURE, str(big), str(small)],
        capture_output=True,
        text=True,
        check=True,
    )
    measured = json.loads(completed.stdout)
    assert measured["tests"] == 1000 and measured["problems"] == 0
    assert size_kib > 60_000
    # A whole-tree parse needs several times the file size; streaming needs about one test.
    assert measured["growth_kib"] < size_kib // 8, (measured, size_kib)
