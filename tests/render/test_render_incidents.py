"""Incident tables as plain rows: cells, raw values and the links templates give."""

from __future__ import annotations

import pytest

from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.incident_sources import from_news
from sphinxcontrib_trending.analysis.incidents import Incident, incidents
from sphinxcontrib_trending.analysis.news import news
from sphinxcontrib_trending.analysis.summary import TrendOptions, summarize
from sphinxcontrib_trending.conf.links import LinkTemplates
from sphinxcontrib_trending.render.incidents import HEADER, incidents_table, members_table
from tests.hand_built import JOB, build_time, builds

LAST = 20
LINKS = LinkTemplates(
    build="https://ci.example.org/{job}/{build}", version="https://git.example.org/{version}"
)


@pytest.fixture(scope="module")
def found() -> list[Incident]:
    levels = {
        "a": lambda n: 10e6 if n < 15 else 9e6,
        "b": lambda n: 10e6 if n < 15 else 7e6,
    }
    data = builds(levels, range(1, LAST + 1))
    trends = [summarize(h, TrendOptions(), build_time(LAST)) for h in histories(data, "mrr")]
    return incidents(from_news(news(trends, build_time(LAST), 30), "mrr"))


def test_the_overview_row_names_the_bounds_and_the_spread(found: list[Incident]) -> None:
    [row] = incidents_table(found, LINKS, "Incidents").rows
    cells = dict(zip(HEADER, row.cells, strict=True))
    assert cells["Incident"] == "Regression" and cells["Tests [#]"] == "2"
    assert cells["Since [DUT build]"] == "26.02-rc0~15"
    assert cells["Last good [CI job build]"] == f"{JOB}/14"
    assert cells["Shared"] == "testbed 2n-skx, cores 2T1C, test type mrr"
    assert (cells["Change [%]"], cells["Change min [%]"], cells["Change max [%]"]) == (
        "-20.00",
        "-30.00",
        "-10.00",
    )
    links = dict(zip(HEADER, row.links, strict=True))
    assert links["Since [DUT build]"] == "https://git.example.org/26.02-rc0~15"
    assert links["Last good [CI job build]"] == f"https://ci.example.org/{JOB}/14"
    assert row.raw[1] == 2 and row.raw[-2] == pytest.approx(-30.0)


def test_members_link_to_their_graphs_and_their_runs(found: list[Incident]) -> None:
    table = members_table(found[0], LINKS)
    assert table.caption.startswith("Regression: 2 tests since 26.02-rc0~15")
    assert [row.cells[0] for row in table.rows] == ["b", "a"]
    assert all(row.link_key is not None for row in table.rows)
    assert table.rows[0].links[2] == "https://git.example.org/26.02-rc0~15"
    assert incidents_table(found, LinkTemplates(), "x").rows[0].links[3] is None
