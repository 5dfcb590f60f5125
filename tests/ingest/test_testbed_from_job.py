"""A build's testbed from its CSIT job name, as csit-dash reads it, unless the source says."""

from __future__ import annotations

import pytest

from sphinxcontrib_trending.ingest.naming import build_testbed, csit_testbed
from sphinxcontrib_trending.ingest.options import compile_options
from sphinxcontrib_trending.ingest.read_options import ReadOptions
from sphinxcontrib_trending.ingest.spec import SourceSpec


@pytest.mark.parametrize(
    ("job", "testbed"),
    [
        ("csit-vpp-perf-mrr-daily-master-2n-icx", "2n-icx"),
        ("csit-vpp-perf-mrr-daily-master-3na-spr", "3na-spr"),
        ("csit-dpdk-perf-report-coverage-2606-3nb-spr", "3nb-spr"),
        ("csit-vpp-perf-mrr-weekly-master-2n-c7gn", "2n-c7gn"),
        ("csit-vpp-perf-mrr-daily-master-3n-oct", "3n-oct"),
        ("vpp-csit-perf-x-2n-lab1-weekly", "2n-lab1-weekly"),  # an external lab's: after "x"
        ("csit-vpp-perf-mrr-daily-master", None),  # no testbed in the name
        ("nightly-build", None),
        ("plain", None),
    ],
)
def test_the_testbed_is_the_job_names_topology_and_architecture(
    job: str, testbed: str | None
) -> None:
    assert csit_testbed(job) == testbed


def _options(**spec: object) -> ReadOptions:
    return compile_options(SourceSpec(paths=("x",), **spec))


JOB = "csit-vpp-perf-mrr-daily-master-3na-spr"


def test_without_testbed_options_the_job_name_says() -> None:
    assert build_testbed(_options(), JOB, ("10.30.51.17",)) == "3na-spr"


def test_a_testbed_pattern_replaces_the_default() -> None:
    assert build_testbed(_options(testbed_pattern=r"master-(?P<testbed>\w+)"), JOB, ()) == "3na"
    assert build_testbed(_options(testbed_pattern=r"nowhere"), JOB, ()) is None


def test_an_address_map_replaces_the_default() -> None:
    options = _options(testbed_map={"10.30.51.17": "lab-3"})
    assert build_testbed(options, JOB, (None, "10.30.51.17")) == "lab-3"
    assert build_testbed(options, JOB, ("10.0.0.1",)) is None
