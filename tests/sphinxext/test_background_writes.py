"""Figures and data files written on a thread of their own, whole before the build ends."""

from __future__ import annotations

import pytest

from sphinxcontrib_trending.sphinxext import background_writes
from sphinxcontrib_trending.sphinxext.page_files import PageFiles
from tests.sphinxext.conftest import SiteFactory


def test_writes_are_made_in_order_before_the_wait_returns() -> None:
    made: list[int] = []
    for number in range(background_writes.PENDING * 3):  # more than it holds at once
        background_writes.submit(made.append, number)
    background_writes.wait()
    assert made == list(range(background_writes.PENDING * 3))


def test_a_failed_write_is_raised_by_the_wait_and_then_forgotten() -> None:
    made: list[str] = []

    def fail() -> None:
        raise OSError("disk full")

    background_writes.submit(fail)
    background_writes.submit(made.append, "after the failure")
    with pytest.raises(OSError, match="disk full"):
        background_writes.wait()
    assert made == []  # nothing written after a failure: the build stops
    background_writes.submit(made.append, "next build")
    background_writes.wait()
    assert made == ["next build"]


def test_a_data_file_that_cannot_be_written_fails_the_build(
    site: SiteFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    write = PageFiles._write

    def fail(self: PageFiles, name: str, data: bytes) -> None:
        if name.endswith(".js"):  # a graph's, written on the thread; a table's CSV is not
            raise OSError(f"cannot write {name}")
        write(self, name, data)

    monkeypatch.setattr(PageFiles, "_write", fail)
    app = site()
    with pytest.raises(Exception, match=r"cannot write graphs\.trending-(graph-\d+|runs)\.js"):
        app.build()
