"""The known-changes file: format, matching, and errors naming file and entry."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest

from sphinxcontrib_trending.analysis.acknowledged import (
    KnownChangesError,
    load_known_changes,
    parse_known_changes,
)

GOOD = """\
# Reviewed anomalies
[[change]]
test = "*-ethip4-ip4base-MRR"
build = "daily-2n-icx/123"
reason = "New driver"
link = "https://jira.example.org/CSIT-1"

[[change]]
test = "tests.vpp.*"
date = 2024-03-05
reason = "Lab power outage"

[[change]]
test = "exact-test"
build = "77"
date = 2024-03-06
reason = "both must hold"
"""


@pytest.fixture
def known(tmp_path: Path):
    path = tmp_path / "known_changes.toml"
    path.write_text(GOOD, encoding="utf-8")
    return load_known_changes(path)


def test_entries_are_parsed_with_their_origin(known, tmp_path: Path) -> None:
    first, second, third = known.entries
    assert (first.job, first.build, first.link) == ("daily-2n-icx", "123", first.link)
    assert first.origin == f"{tmp_path / 'known_changes.toml'}:2 (entry 1)"
    assert second.day == date(2024, 3, 5) and second.build is None
    assert (third.job, third.build) == (None, "77")


def test_build_entry_matches_test_glob_job_and_build(known) -> None:
    test = "2n1l-25ge-ethip4-ip4base-mrr"
    assert known.find(test, job="daily-2n-icx", build="123").reason == "New driver"
    assert not known.is_acknowledged(test, job="weekly", build="123")
    assert not known.is_acknowledged(test, job="daily-2n-icx", build="124")
    assert not known.is_acknowledged("2n1l-ethip6-mrr", job="daily-2n-icx", build="123")


def test_date_entry_matches_the_day(known) -> None:
    assert known.is_acknowledged("tests.vpp.perf.x", time=datetime(2024, 3, 5, 23, 59))
    assert not known.is_acknowledged("tests.vpp.perf.x", time=datetime(2024, 3, 6, 0, 1))
    assert not known.is_acknowledged("tests.vpp.perf.x")


def test_build_and_date_must_both_hold(known) -> None:
    assert known.is_acknowledged("exact-test", job="any", build="77", time=datetime(2024, 3, 6))
    assert not known.is_acknowledged("exact-test", build="77", time=datetime(2024, 3, 7))


def test_empty_file_acknowledges_nothing() -> None:
    assert not parse_known_changes("", "k.toml").is_acknowledged("t", build="1")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[change]\ntest = 1", r"k\.toml: invalid TOML: .*line 1"),
        ("[[change]]\ntest = 't'\nbuild = '1'\n", r"k\.toml:1 \(entry 1\): missing .*'reason'"),
        (
            "[[change]]\ntest='t'\nbuild='1'\nreason='r'\n\n[[change]]\ntest='t'\nreason='r'\n",
            r"k\.toml:6 \(entry 2\): give 'build', 'date' or both",
        ),
        ("[[change]]\ntest='t'\ndate='2024-03-05'\nreason='r'\n", r"'date' must be a TOML date"),
        ("[[change]]\ntest='t'\ndate=2024-03-05T10:00:00\nreason='r'\n", r"must be a TOML date"),
        ("[[change]]\ntest='t'\nbuild='1'\nreason='r'\nwhy='x'\n", r"unknown key 'why'"),
        ("[[change]]\ntest=''\nbuild='1'\nreason='r'\n", r"'test' must be a non-empty string"),
        ("[[changes]]\ntest='t'\n", r"unknown top-level key 'changes'"),
        ("change = 3\n", r"must be an array of tables"),
    ],
)
def test_bad_content_names_file_and_entry(text: str, message: str) -> None:
    with pytest.raises(KnownChangesError, match=message):
        parse_known_changes(text, "k.toml")


def test_missing_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(KnownChangesError, match=r"nowhere\.toml: cannot read"):
        load_known_changes(tmp_path / "nowhere.toml")
