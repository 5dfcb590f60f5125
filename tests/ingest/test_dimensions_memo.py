"""A memo of dimensions gives what the rules give, test after test, whatever it saw before."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sphinxcontrib_trending.ingest.dimensions import (
    DIMENSIONS,
    DimensionMemo,
    DimensionRules,
    RuleInput,
    overrides_from,
    rules_for,
)
from sphinxcontrib_trending.ingest.model import TestHead, TestResult
from tests.ingest.test_dimensions import result_of

CASE = "tests.vpp.perf.ip4.2n1l-10ge2p1x710-ethip4-ip4base-mrr.64b-1c-ethip4-ip4base-mrr"


def _test(
    test_id: str = CASE,
    name: str = "64b-1c-ethip4-ip4base-mrr",
    tags: tuple[str, ...] = ("DRV_VFIO_PCI",),
    attributes: tuple[tuple[str, str], ...] = (),
) -> TestResult:
    return result_of(test_id, tags, attributes, name)


SOURCE_RULES = [
    rules_for(),
    rules_for(overrides_from({"testbed": r"\.(\dn-[a-z]+)-", "driver": "tag:DRV_"})),
    rules_for(overrides_from({"nic": "", "test_type": r"-(\w+)$"})),
]

# each input a rule reads, changed alone in a way that changes a dimension other
# than the testbed (the one the memo does not keep): a memo whose key missed it
# would give the first test's dimensions to the second
ONE_INPUT_CHANGED = {
    "test id": (_test(), "2n-icx", _test(test_id=CASE.replace("10ge2p1x710", "25ge2p1xxv710"))),
    "name": (_test(), "2n-icx", _test(name="imix-1c-ethip4-ip4base-mrr")),
    "tags": (_test(), "2n-icx", _test(tags=("DRV_AVF",))),
    "test_type attribute": (_test(), "2n-icx", _test(attributes=(("test_type", "NDRPDR"),))),
    "testbed's vfio plugin": (_test(), "3n-oct", _test()),
}


@pytest.mark.parametrize("changed", list(ONE_INPUT_CHANGED))
def test_a_test_differing_in_one_input_the_rules_read_is_derived_anew(changed: str) -> None:
    first, testbed, second = ONE_INPUT_CHANGED[changed]
    rules = rules_for()
    plain = [rules.derive(first, "2n-icx"), rules.derive(second, testbed)]
    assert plain[0].labels()[1:] != plain[1].labels()[1:], "the change must show"
    memo = DimensionMemo(rules)
    assert [memo.derive(first, "2n-icx"), memo.derive(second, testbed)] == plain


def test_the_testbed_is_derived_for_every_test_of_a_test_the_memo_holds() -> None:
    memo = DimensionMemo(rules_for())
    found = [memo.derive(_test(), testbed) for testbed in ("2n-icx", "3n-icx", None)]
    assert [dimensions.testbed for dimensions in found] == ["2n-icx", "3n-icx", None]
    assert [dimensions.driver for dimensions in found] == ["dpdk"] * 3


def test_the_testbed_is_the_first_dimension_the_memo_derives_anew() -> None:
    assert DIMENSIONS[0] == "testbed"


def test_rules_are_given_only_what_the_memo_files_them_under() -> None:
    """A rule that read more of a test than a :class:`RuleInput` holds would fail here,
    for every test: it is all a rule is given."""
    head = TestHead(CASE, "64b-1c-ethip4-ip4base-mrr", "s", ("DRV_AVF",), "1C", (("a", "b"),))
    assert RuleInput.of(head) == (CASE, "64b-1c-ethip4-ip4base-mrr", ("DRV_AVF",), None)
    for rules in SOURCE_RULES:
        assert DimensionMemo(rules).derive(head, "2n-icx") == rules.derive(head, "2n-icx")


WORDS = st.sampled_from(
    ["10ge2p1x710", "25ge2p1xxv710", "avf", "rdma", "64b", "imix", "1c", "2t1c", "mrr", "ndrpdr"]
)
tests = st.builds(
    _test,
    test_id=st.lists(WORDS, min_size=1, max_size=4).map(lambda words: "t." + "-".join(words)),
    name=st.lists(WORDS, max_size=3).map("-".join),
    tags=st.lists(
        st.sampled_from(["DRV_AVF", "DRV_VFIO_PCI", "NIC_Intel-X710", "2T1C", "64B", "MRR"]),
        max_size=2,
    ).map(tuple),
    attributes=st.sampled_from([(), (("test_type", "soak"),), (("hosts", "h1"),)]),
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(tests, st.sampled_from([None, "2n-icx", "3n-icx", "3n-oct", "2n-oct"]))),
    st.sampled_from(range(len(SOURCE_RULES))),
)
def test_a_memo_derives_what_the_rules_derive(
    seen: list[tuple[TestResult, str | None]], which: int
) -> None:
    rules: DimensionRules = SOURCE_RULES[which]
    memo = DimensionMemo(rules)
    for test, testbed in [*seen, *seen]:
        assert memo.derive(test, testbed) == rules.derive(test, testbed)
