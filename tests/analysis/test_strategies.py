"""Strategy rules: validation messages, selection, and applying them."""

from __future__ import annotations

import importlib

import pytest

from sphinxcontrib_trending.analysis.degradation import DEGRADATION, NO_CHANGE, UNKNOWN
from sphinxcontrib_trending.analysis.degradation.strategies import (
    StrategyError,
    Subject,
    check_with_strategies,
    layered,
    parse_strategies,
)

RULES = [
    {"tags": "mrr and not *vhost*", "metric": "mrr", "method": "wtt", "alpha": 0.01},
    {"source": "csit-*", "method": "average_amount_threshold", "degradation_threshold": 1.1},
    {"method": "aat"},
]
MRR_TEST = Subject(tags=("MRR", "1T1C"), metric="MRR", source="csit-2n-icx")
VHOST_TEST = Subject(tags=("MRR", "VHOST"), metric="mrr", source="csit-2n-icx")
OTHER_TEST = Subject(tags=("X",), metric="time", source="asv")


def names(rules: list) -> list[tuple[int, str]]:
    return [(rule.index, rule.method.name) for rule in rules]


def test_first_applies_the_first_matching_rule() -> None:
    strategies = parse_strategies(RULES)
    assert names(strategies.rules_for(MRR_TEST)) == [(0, "welch_t_test")]
    assert names(strategies.rules_for(VHOST_TEST)) == [(1, "average_amount_threshold")]
    assert names(strategies.rules_for(OTHER_TEST)) == [(2, "average_amount_threshold")]


def test_all_applies_every_matching_rule() -> None:
    strategies = parse_strategies(RULES, apply="all")
    assert [index for index, _ in names(strategies.rules_for(MRR_TEST))] == [0, 1, 2]
    assert [index for index, _ in names(strategies.rules_for(OTHER_TEST))] == [2]


def test_selector_needs_the_attribute() -> None:
    strategies = parse_strategies([{"metric": "mrr", "method": "aat"}])
    assert strategies.rules_for(Subject(tags=("MRR",))) == []


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ("aat", r"must be a list of rules"),
        ([{"method": "aat"}, "aat"], r"strategies\[1\]: a rule must be a dict"),
        ([{"tags": "mrr"}], r"strategies\[0\]: missing key 'method'"),
        ([{"method": "nope"}], r"strategies\[0\]: key 'method': unknown degradation method"),
        ([{"method": 3}], r"strategies\[0\]: key 'method' must be a string"),
        ([{"method": "aat", "metric": 5}], r"strategies\[0\]: key 'metric' must be a string"),
        (
            [{"method": "aat"}, {"method": "aat", "metirc": "mrr"}],
            r"strategies\[1\]: key 'metirc' is neither a selector .* nor an option of method"
            r".*; did you mean 'metric'\?",
        ),
        ([{"method": "wtt", "alpha": 2}], r"strategies\[0\]: .*alpha must be within"),
        (
            [{"method": "aat", "tags": "mrr and (1t1c"}],
            r"strategies\[0\]: key 'tags': malformed tag filter at position 13",
        ),
    ],
)
def test_invalid_rules_name_index_and_key(rules: object, message: str) -> None:
    with pytest.raises(StrategyError, match=message):
        parse_strategies(rules)  # type: ignore[arg-type]


def test_invalid_apply_mode() -> None:
    with pytest.raises(StrategyError, match="apply must be 'first' or 'all'"):
        parse_strategies(RULES, apply="some")


def test_check_with_strategies_uses_each_rules_method_and_options() -> None:
    strategies = parse_strategies(RULES, apply="all")
    subjects = {"mrr": MRR_TEST, "other": OTHER_TEST}
    baseline = {"mrr": [100.0, 101.0, 99.0, 100.5], "other": [10.0], "stranger": [1.0]}
    target = {"mrr": [115.0, 116.0, 114.0, 115.5], "other": [10.0]}
    reports = check_with_strategies(strategies, subjects, baseline, target)
    summary = [(r.location, r.method, r.result) for r in reports]
    assert summary == [
        ("mrr", "welch_t_test", DEGRADATION),
        ("mrr", "average_amount_threshold", DEGRADATION),  # rule 1: threshold 1.1
        ("mrr", "average_amount_threshold", NO_CHANGE),  # rule 2: default 2.0
        ("other", "average_amount_threshold", NO_CHANGE),
        ("stranger", "average_amount_threshold", UNKNOWN),  # catch-all rule, no target
    ]
    assert reports[-1].subtype == "missing target"


def test_location_no_rule_selects_is_reported() -> None:
    strategies = parse_strategies([{"metric": "mrr", "method": "aat"}])
    reports = check_with_strategies(strategies, {}, {"t": [1.0]}, {"t": [3.0]})
    assert [(r.result, r.subtype) for r in reports] == [(UNKNOWN, "no strategy")]


def test_rules_are_resolved_once_when_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    strategies = parse_strategies(RULES)

    def no_second_lookup(name: str) -> None:
        raise AssertionError(f"method {name!r} resolved again")

    # The package exports the function ``compare``; the module is patched.
    compare_module = importlib.import_module("sphinxcontrib_trending.analysis.degradation.compare")
    monkeypatch.setattr(compare_module, "resolve_method", no_second_lookup)
    reports = check_with_strategies(strategies, {"t": OTHER_TEST}, {"t": [1.0]}, {"t": [3.0]})
    assert [r.method for r in reports] == ["average_amount_threshold"]


def test_layered_rules_try_the_command_line_first() -> None:
    command_line = parse_strategies([{"tags": "vhost", "method": "mwut"}], setting="--strategy")
    conf = parse_strategies(RULES, apply="all")
    merged = layered(command_line, conf)
    assert merged is not None and merged.apply == "all"
    assert names(merged.rules) == [
        (0, "mann_whitney_u_test"),
        (1, "welch_t_test"),
        (2, "average_amount_threshold"),
        (3, "average_amount_threshold"),
    ]
    assert names(merged.rules_for(VHOST_TEST)) == [
        (0, "mann_whitney_u_test"),
        (2, "average_amount_threshold"),
        (3, "average_amount_threshold"),
    ]
    assert layered(None, conf) is conf and layered(command_line, None) is command_line
    assert layered(None, None) is None
