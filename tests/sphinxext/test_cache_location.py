"""The default cache never lands inside the published HTML."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from sphinxcontrib_trending.sphinxext.config import default_cache_dir


def test_make_mode_layout_puts_the_cache_beside_the_doctrees(tmp_path: Path) -> None:
    app = SimpleNamespace(doctreedir=tmp_path / "_build/doctrees", outdir=tmp_path / "_build/html")
    assert default_cache_dir(app) == (tmp_path / "_build/trending-cache").resolve()


def test_plain_builder_layout_keeps_the_cache_out_of_the_html(tmp_path: Path) -> None:
    app = SimpleNamespace(doctreedir=tmp_path / "html/.doctrees", outdir=tmp_path / "html")
    assert default_cache_dir(app) == (tmp_path / "html/.doctrees/trending-cache").resolve()


def test_a_real_build_writes_its_cache_outside_the_output(site) -> None:
    app = site()
    app.build()
    outdir = Path(app.outdir)
    assert not (outdir / "trending-cache").exists()
    assert any((Path(app.doctreedir).parent / "trending-cache").rglob("*.json"))
