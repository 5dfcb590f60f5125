"""Histories from runs kept between builds equal those made from every build's rows."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from sphinxcontrib_trending.analysis.history import TestHistory as History
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.history_columns import HistoryColumns
from sphinxcontrib_trending.ingest.model import Build
from sphinxcontrib_trending.ingest.store.rows import SharedValues, tables_by_partition
from sphinxcontrib_trending.ingest.store.stored_tests import (
    builds_from_input,
    input_rows,
    prepared_rows,
)
from sphinxcontrib_trending.ingest.trials import Trials
from tests.ingest.test_stored_tests import builds as generated_builds


def _stored(generated: list[Build], passed_messages: bool) -> list[Build]:
    """Each build its own input, named as a store read names it (here by its place)."""
    found = []
    for at, build in enumerate(generated):
        tables = [
            prepared_rows(table, passed_messages=passed_messages)
            for table in tables_by_partition([build]).values()
        ]
        found.extend(builds_from_input(input_rows(tables), SharedValues(), f"input-{at}"))
    return found


def _same(got: list[History], expected: list[History]) -> None:
    """Equal, field by field, and every run's trials of the same kind with the same statistics."""
    assert got == expected
    for mine, theirs in zip(got, expected, strict=True):
        assert (mine.key, mine.unit) == (theirs.key, theirs.unit)
        assert mine.dimensions == theirs.dimensions
        for run, other in zip(mine.runs, theirs.runs, strict=True):
            assert tuple(run) == tuple(other)
            assert type(run.values) is type(other.values)
            if isinstance(run.values, Trials):
                assert run.values.statistics == other.values.statistics  # type: ignore[attr-defined]


@settings(max_examples=60, deadline=None)
@given(
    generated_builds,
    st.lists(st.integers(0, 5), min_size=1, max_size=4),
    st.booleans(),
    st.booleans(),
)
def test_histories_extended_build_by_build_equal_those_made_whole(
    generated: list[Build], steps: list[int], passed_messages: bool, keep_failing: bool
) -> None:
    generated.sort(key=lambda build: build.time)
    stored = _stored(generated, passed_messages)
    with tempfile.TemporaryDirectory() as folder:
        for metric in ("mrr", "custom"):
            kept = HistoryColumns(Path(folder), "source", metric)
            seen = 0
            for step in [*steps, len(stored)]:
                seen = min(len(stored), seen + step)
                builds = stored[:seen]
                expected = histories(builds, metric, keep_failing=keep_failing)
                _same(histories(builds, metric, keep_failing=keep_failing, kept=kept), expected)
            # builds that do not start with the kept ones: made from every build again
            later = stored[1:]
            expected = histories(later, metric, keep_failing=keep_failing)
            _same(histories(later, metric, keep_failing=keep_failing, kept=kept), expected)
