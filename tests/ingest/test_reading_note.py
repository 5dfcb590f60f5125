"""How a dataset's inputs were read, as the build log says it."""

from __future__ import annotations

import pytest

from sphinxcontrib_trending.ingest.model import Dataset


@pytest.mark.parametrize(
    ("files", "parsed", "note"),
    [
        (3, 3, "all parsed"),
        (0, 2, "all parsed"),  # URLs parsed without a store leave no file behind
        (3, 0, "all from the store"),
        (3, 1, "1 parsed, the rest from the store"),
        (0, 0, "nothing read"),
    ],
)
def test_reading_note(files: int, parsed: int, note: str) -> None:
    dataset = Dataset(
        files=[f"f{number}" for number in range(files)],
        parsed=[f"f{number}" for number in range(parsed)],
    )
    assert dataset.reading_note() == note
