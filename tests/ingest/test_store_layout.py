"""Which names of a store's listing and manifest are data files, and ours."""

from __future__ import annotations

import itertools
import re
from pathlib import PurePosixPath

from sphinxcontrib_trending.ingest.store.layout import OUR_FILE, is_data_file, is_our_file

OURS = "0123456789abcdef-0123456789abcdef0123456789abcdef.parquet"
NAMES = ["", ".", "..", "_hidden", ".dot", "year=2024", "x.parquet", OURS, "a.parquet.tmp"]


def _by_path(relative: str) -> tuple[bool, bool]:
    """What the names mean, as the path library reads them."""
    path = PurePosixPath(relative)
    parts = path.parts
    data = (
        bool(parts)
        and parts[-1].endswith(".parquet")
        and not any(part.startswith(("_", ".")) for part in parts)
    )
    return data, not path.is_absolute() and data and bool(OUR_FILE.match(path.name))


def test_names_split_as_text_mean_what_the_path_library_reads() -> None:
    checked = 0
    for length in range(1, 4):
        for names in itertools.product(NAMES, repeat=length):
            for relative in ("/".join(names), "/" + "/".join(names), "//".join(names) + "/"):
                assert (is_data_file(relative), is_our_file(relative)) == _by_path(relative), (
                    relative
                )
                checked += 1
    assert checked > 2000


def test_our_file_is_a_content_named_parquet_file_at_a_relative_path() -> None:
    assert is_our_file(f"test_type=mrr/year=2024/{OURS}")
    assert not is_our_file(f"/test_type=mrr/{OURS}")
    assert not is_our_file(f"_tmp/{OURS}")
    assert is_data_file("test_type=mrr/reference.parquet")
    assert not is_our_file("test_type=mrr/reference.parquet")
    assert re.fullmatch(OUR_FILE, OURS)
