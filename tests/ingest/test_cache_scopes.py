"""Cache scopes no build uses go after a month; the one in use, and recent ones, stay."""

from __future__ import annotations

import os
import time
from pathlib import Path

from sphinxcontrib_trending.analysis.many import SeriesCache, classify_series
from sphinxcontrib_trending.ingest.cache_scopes import UNUSED_FOR, use_scope
from sphinxcontrib_trending.ingest.store.dataset import Query, read_store
from tests.analysis.test_many import make_jobs
from tests.ingest.test_store_source import OPTIONS

DAY = 24 * 3600.0


def _aged(path: Path, days: float) -> None:
    moment = time.time() - days * DAY
    os.utime(path, (moment, moment))


def test_scopes_unused_for_a_month_go_and_the_rest_stay(tmp_path: Path) -> None:
    for name in ("current", "recent", "stale"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "kept.arrow").write_bytes(b"x")
    _aged(tmp_path / "current", 400)
    _aged(tmp_path / "recent", UNUSED_FOR.days - 1)
    _aged(tmp_path / "stale", UNUSED_FOR.days + 1)
    use_scope(tmp_path, "current")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["current", "recent"]
    # the scope in use is marked used now: a later use of another scope keeps it
    assert time.time() - (tmp_path / "current").stat().st_mtime < DAY
    assert (tmp_path / "current" / "kept.arrow").read_bytes() == b"x"


def test_a_scope_of_several_files_lives_while_any_of_them_is_recent(tmp_path: Path) -> None:
    def of(name: str) -> str:
        return name.split(".", 1)[0]

    for name in ("old.json", "old.searches.json", "mixed.json", "mixed.searches.json", "now.json"):
        (tmp_path / name).write_text("{}")
    (tmp_path / "old.searches").mkdir()
    (tmp_path / "old.searches" / "a.state").write_bytes(b"s")
    for name in ("old.json", "old.searches.json", "old.searches", "mixed.json"):
        _aged(tmp_path / name, UNUSED_FOR.days + 5)
    use_scope(tmp_path, "now", of)
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "mixed.json",
        "mixed.searches.json",
        "now.json",
    ]


def test_a_missing_cache_folder_is_no_error(tmp_path: Path) -> None:
    use_scope(tmp_path / "none", "scope")
    assert not (tmp_path / "none").exists()


def test_a_store_read_drops_the_decoded_copies_of_settings_unused_for_a_month(
    ours: Path, tmp_path: Path
) -> None:
    decoded = tmp_path / "decoded"
    read_store(str(ours), OPTIONS, Query(passed_messages=True), decoded)
    (old,) = decoded.iterdir()
    _aged(old, UNUSED_FOR.days + 1)
    again = read_store(str(ours), OPTIONS, Query(passed_messages=False), decoded)
    assert again.problems == [] and again.builds
    (kept,) = decoded.iterdir()
    assert kept != old and any(kept.iterdir())


def test_a_series_cache_drops_the_groupings_of_settings_unused_for_a_month(
    tmp_path: Path,
) -> None:
    jobs = make_jobs(3)
    classify_series(jobs, SeriesCache(tmp_path, "old settings"))
    old = sorted(tmp_path.iterdir())
    assert old
    for path in old:
        _aged(path, UNUSED_FOR.days + 1)
    classify_series(jobs, SeriesCache(tmp_path, "new settings"))
    remaining = sorted(tmp_path.iterdir())
    assert remaining and not set(remaining) & set(old)
