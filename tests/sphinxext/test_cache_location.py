"""Where the cache goes (never inside the published HTML), and how a build process ends."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from sphinxcontrib_trending.sphinxext.config import default_cache_dir
from tests.conftest import ROOTS
from tests.sphinxext import datasets


def test_make_mode_layout_puts_the_cache_beside_the_doctrees(tmp_path: Path) -> None:
    app = SimpleNamespace(doctreedir=tmp_path / "_build/doctrees", outdir=tmp_path / "_build/html")
    assert default_cache_dir(app) == (tmp_path / "_build/trending-cache").resolve()


def test_plain_builder_layout_keeps_the_cache_out_of_the_html(tmp_path: Path) -> None:
    app = SimpleNamespace(doctreedir=tmp_path / "html/.doctrees", outdir=tmp_path / "html")
    assert default_cache_dir(app) == (tmp_path / "html-trending-cache").resolve()


def test_plain_html_build_publishes_no_cache(tmp_path: Path) -> None:
    """``sphinx-build -b html SRC OUT``: the doctrees are in OUT, the cache is not."""
    src = tmp_path / "src"
    shutil.copytree(ROOTS / "test-trending", src)
    datasets.write(src / "data", range(1, 11))
    out = tmp_path / "out"
    completed = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(src), str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert (out / ".doctrees").is_dir()
    published = [path for path in out.rglob("*") if "trending-cache" in str(path)]
    assert published == []
    assert (tmp_path / "out-trending-cache" / "store" / "_manifest.json").is_file()
    assert any((tmp_path / "out-trending-cache" / "store").rglob("*.parquet"))


def test_a_real_build_writes_its_cache_outside_the_output(site) -> None:
    app = site()
    app.build()
    outdir = Path(app.outdir)
    assert not (outdir / "trending-cache").exists()
    assert any((Path(app.doctreedir).parent / "trending-cache" / "store").rglob("*.parquet"))


def test_a_build_process_exits_with_its_heap_frozen(tmp_path: Path) -> None:
    """The interpreter's last collection would walk everything the build loaded, for nothing."""
    src = tmp_path / "src"
    shutil.copytree(ROOTS / "test-trending", src)
    datasets.write(src / "data", range(1, 11))
    # atexit runs handlers last in, first out: this one runs after the extension's
    script = (
        "import atexit, gc, sys\n"
        "from sphinx.cmd.build import main\n"
        "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 0))\n"
        "code = main(['-q', '-b', 'html', sys.argv[1], sys.argv[2]])\n"
        "print('frozen after the build:', gc.get_freeze_count() > 0)\n"
        "sys.exit(code)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script, str(src), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == [
        "frozen after the build: False",
        "frozen at exit: True",
    ]


def test_a_cache_folder_that_cannot_be_written_leaves_the_build_without_its_cache(
    site, tmp_path: Path
) -> None:
    """A cache that cannot even be created (here below a file): one warning, a whole site."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    app = site(confoverrides={"trending_cache_dir": str(blocker / "cache")})
    app.build()
    warnings = app._warning.getvalue()
    assert f"cache folder {blocker / 'cache'} cannot be written (" in warnings
    assert "going on without it, parsing and grouping everything anew" in warnings
    assert warnings.count("[trending.cache]") == 1
    assert (Path(app.outdir) / "dashboard.html").is_file()
