"""Keys are derived from the declared identities, so no setting or metric can be left out.

A memo keyed by hand once left out the metric, and pages showed another
metric's numbers.  These tests fail when a field is added to an identity or
to the analysis options without reaching the keys derived from them.
"""

from __future__ import annotations

import pickle
import pickletools
from dataclasses import fields, replace

import pytest

from sphinxcontrib_trending.analysis.excluded import ExcludedRun, Exclusions
from sphinxcontrib_trending.analysis.identity import GroupingSpec, SeriesRef, SeriesTarget
from sphinxcontrib_trending.analysis.many import SeriesJob, series_cache
from sphinxcontrib_trending.analysis.summary import TrendOptions

CHANGED = {
    "samples": "trials",
    "search": "jumpavg",
    "direction": "lower",
    "sbps": 2.0,
    "outlier_runs": 3,
    "exclusions": Exclusions((ExcludedRun("bad testbed", "excluded.toml:1", build="7"),)),
    "calibration": "spread",
}
"""A value other than the default for each field of :class:`GroupingSpec`."""

NOT_GROUPING = {"windows", "policy", "hold_unconfirmed", "false_alarm_target", "stated_rates"}
"""The analysis options that change what is judged of a grouping, not the grouping
(a false-alarm target raises a threshold of the policy)."""


def test_every_grouping_field_has_a_changed_value_here() -> None:
    assert {field.name for field in fields(GroupingSpec)} == set(CHANGED)


@pytest.mark.parametrize("name", sorted(CHANGED))
def test_each_grouping_field_changes_the_cache_scope_and_the_content(name: str) -> None:
    spec = GroupingSpec()
    changed = replace(spec, **{name: CHANGED[name]})
    assert series_cache(None, "s", changed).scope != series_cache(None, "s", spec).scope
    samples = ((1.0, 2.0),) if name == "samples" else (1.0,)
    assert SeriesJob("a", samples, changed).content != SeriesJob("a", samples, spec).content


def test_every_trend_option_reaches_the_grouping_or_is_declared_apart() -> None:
    options = {field.name for field in fields(TrendOptions)}
    assert options - NOT_GROUPING == set(CHANGED)
    for name, value in CHANGED.items():
        assert getattr(replace(TrendOptions(), **{name: value}).grouping, name) == value


def test_an_exclusions_reason_and_place_change_no_key() -> None:
    """Rewording a reason, or moving an entry down the file, regroups nothing."""
    entry = ExcludedRun("bad testbed", "excluded.toml:1", build="7")
    moved = ExcludedRun("testbed rebooted", "excluded.toml:9", build="7")
    spec, same = (
        GroupingSpec(exclusions=Exclusions((entry,))),
        GroupingSpec(exclusions=Exclusions((moved,))),
    )
    assert series_cache(None, "s", spec).scope == series_cache(None, "s", same).scope


def test_a_series_is_named_by_its_metric_too() -> None:
    ndr, pdr = SeriesRef("ndr", "2n-icx/t"), SeriesRef("pdr", "2n-icx/t")
    assert ndr.identity != pdr.identity
    assert SeriesTarget("s", ndr).anchor != SeriesTarget("s", pdr).anchor
    assert SeriesTarget("s", ndr).anchor != SeriesTarget("t", ndr).anchor
    assert SeriesTarget("s", SeriesRef("ndr", "2n-icx/T <b>")).anchor == "trending-s-ndr-2n-icx-t-b"


def test_series_identities_pickle_by_their_constructor() -> None:
    """A site's environment holds a few identities per series (20,000 at CSIT's size):
    loaded through the constructor, not a slotted dataclass's per-field state."""
    target = SeriesTarget("mrr-source", SeriesRef("mrr", "2n-icx/tests.vpp.perf.ip4-mrr"))
    dumped = pickle.dumps(target, protocol=pickle.HIGHEST_PROTOCOL)
    opcodes = {opcode.name for opcode, _, _ in pickletools.genops(dumped)}
    assert "BUILD" not in opcodes
    loaded = pickle.loads(dumped)
    assert loaded == target
    assert type(loaded.series) is SeriesRef
    assert loaded.anchor == target.anchor
