"""A runs trace's texts taken as columns (``_RunTexts``) are each run's own texts,
whatever order builds come in, as rows are added and when the rows start over."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sphinxcontrib_trending.analysis.test_run import RunBuild
from sphinxcontrib_trending.render import figure
from sphinxcontrib_trending.render.figure import _run_link, _run_texts, _RunTexts

BUILD = "https://ci.example/{job}/{build}"
ORIGINS = [
    RunBuild.of(job, str(build), f"26.06-rc0~{build}" if build % 3 else None, testbed)
    for job, testbed in (("csit-daily", "2n-icx"), ("csit-<b>weekly", None))
    for build in range(6)
]
HOSTS = ("", "10.0.0.1 10.0.0.2", "10.0.0.3")


def _one_by_one(
    origins: list[RunBuild], hosts: list[str]
) -> tuple[list[str], list[str], list[str], list[str], list[str | None]]:
    rows = [
        (*_run_texts(origin, shown), _run_link(BUILD, None, origin))
        for origin, shown in zip(origins, hosts, strict=True)
    ]
    if not rows:
        return [], [], [], [], []
    return tuple(list(column) for column in zip(*rows, strict=True))  # type: ignore[return-value]


runs = st.lists(st.tuples(st.sampled_from(ORIGINS), st.sampled_from(HOSTS)), max_size=20)


@pytest.mark.parametrize("limit", [3, 1 << 16])
@given(traces=st.lists(runs, min_size=1, max_size=6))
def test_each_trace_gets_its_runs_texts_in_order(
    limit: int, traces: list[list[tuple[RunBuild, str]]]
) -> None:
    texts = _RunTexts(BUILD, None)
    texts.LIMIT = limit  # a few rows: they start over, and again
    for trace in traces:
        origins = [origin for origin, _ in trace]
        hosts = [shown for _, shown in trace]
        assert texts.columns(origins, hosts) == _one_by_one(origins, hosts)


def test_a_site_has_one_set_of_rows_per_link_templates() -> None:
    assert figure._run_texts_of(BUILD, None) is figure._run_texts_of(BUILD, None)
    assert figure._run_texts_of(BUILD, None) is not figure._run_texts_of(None, None)
