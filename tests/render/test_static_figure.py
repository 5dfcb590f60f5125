"""Static images of trend figures: valid files holding every series of the figure."""

from __future__ import annotations

import re
from pathlib import Path

import lxml.etree
import pytest

from sphinxcontrib_trending.render.figure import trend_figure
from sphinxcontrib_trending.render.static_figure import write_static_figure
from tests import hand_built
from tests.render.test_render_tables import _trends

LEVELS: dict[str, hand_built.Level] = {
    "regress": lambda n: None if n == 12 else (10e6 if n < 25 else 8e6),
    "$stable <b>": lambda n: 3e6,
}


@pytest.fixture(scope="module")
def figure() -> dict:
    return trend_figure(_trends(hand_built.builds(LEVELS, range(1, 31))), title="Two & more")


def test_every_trace_is_drawn_into_the_svg(figure: dict, tmp_path: Path) -> None:
    names = [trace["name"] for trace in figure["data"]]
    # points and trend of both tests, the failed run and the anomaly of "regress"
    assert len(names) == 6 and "regress failed" in names and "regress anomalies" in names
    path = tmp_path / "graph.svg"
    assert write_static_figure(figure, path) == 6
    svg = lxml.etree.parse(str(path)).getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    ids = sorted(svg.xpath("//*[starts-with(@id, 'trending-series-')]/@id"))
    assert ids == [f"trending-series-{number}" for number in range(6)]
    text = path.read_text()
    # plain text for matplotlib: no HTML entities, and "$" is not mathtext
    assert "&amp;lt;" not in text


def test_an_unchanged_figure_gives_the_same_bytes(figure: dict, tmp_path: Path) -> None:
    for suffix in ("svg", "pdf", "png"):
        first, second = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
        write_static_figure(figure, first)
        write_static_figure(figure, second)
        assert first.read_bytes() == second.read_bytes(), suffix


@pytest.mark.parametrize(("suffix", "magic"), [("png", b"\x89PNG\r\n\x1a\n"), ("pdf", b"%PDF-")])
def test_raster_and_pdf_images_are_valid_files(
    figure: dict, tmp_path: Path, suffix: str, magic: bytes
) -> None:
    path = tmp_path / f"graph.{suffix}"
    write_static_figure(figure, path)
    data = path.read_bytes()
    assert data.startswith(magic)
    if suffix == "pdf":
        assert re.search(rb"%%EOF\s*$", data)
    else:
        from PIL import Image

        with Image.open(path) as image:
            assert image.size == (1000, 480)
