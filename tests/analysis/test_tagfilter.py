"""The tag filter language: precedence, globs, parentheses, errors, no eval."""

from __future__ import annotations

import pytest

from sphinxcontrib_trending.analysis.tagfilter import FilterError, compile_filter

IP4_MRR_1C = ("MRR", "1T1C", "IP4FWD", "NIC_Intel-X710")
VHOST_2C = ("MRR", "2T1C", "VHOST", "IP4FWD")
NDR_1C = ("NDRPDR", "1T1C", "IP6FWD")


@pytest.mark.parametrize(
    ("expression", "tags", "expected"),
    [
        ("mrr", IP4_MRR_1C, True),
        ("MRR", ("mrr",), True),
        ("ndrpdr", IP4_MRR_1C, False),
        ("ip?fwd", NDR_1C, True),
        ("nic_intel-*", IP4_MRR_1C, True),
        ("*vhost*", VHOST_2C, True),
        ("[12]t1c", VHOST_2C, True),
        ("mrr and (1t1c or 2t1c) and not *vhost*", IP4_MRR_1C, True),
        ("mrr and (1t1c or 2t1c) and not *vhost*", VHOST_2C, False),
        ("mrr and (1t1c or 2t1c) and not *vhost*", NDR_1C, False),
        # and binds tighter than or: ndrpdr or (mrr and vhost)
        ("ndrpdr or mrr and vhost", NDR_1C, True),
        ("ndrpdr or mrr and vhost", IP4_MRR_1C, False),
        ("(ndrpdr or mrr) and vhost", NDR_1C, False),
        # not binds tighter than and
        ("not vhost and mrr", IP4_MRR_1C, True),
        ("not (vhost and mrr)", VHOST_2C, False),
        ("not not mrr", IP4_MRR_1C, True),
        ("NOT vhost AND Mrr", IP4_MRR_1C, True),
        ("mrr", (), False),
        ("not mrr", (), True),
        ("((mrr))", IP4_MRR_1C, True),
    ],
)
def test_matching(expression: str, tags: tuple[str, ...], expected: bool) -> None:
    assert compile_filter(expression)(tags) is expected


def test_accepts_any_iterable_of_tags() -> None:
    assert compile_filter("a and b")(tag for tag in ["B", "A"])


@pytest.mark.parametrize(
    ("expression", "position", "fragment"),
    [
        ("", 0, "empty"),
        ("   ", 0, "empty"),
        ("mrr and", 7, "found the end"),
        ("mrr and (1t1c or", 16, "found the end"),
        ("(mrr", 4, "expected ')' to close the '(' at position 0"),
        ("mrr)", 3, "closes nothing"),
        ("mrr 1t1c", 4, "expected 'and', 'or'"),
        ("and mrr", 0, "expected a tag pattern"),
        ("mrr or or 1t1c", 7, "found 'or'"),
        ("()", 1, "found ')'"),
        ("__import__('os')", 10, "expected 'and', 'or'"),
    ],
)
def test_malformed_expressions_name_the_position(
    expression: str, position: int, fragment: str
) -> None:
    with pytest.raises(FilterError) as caught:
        compile_filter(expression)
    assert fragment in caught.value.problem
    assert caught.value.position == position
    assert isinstance(caught.value, ValueError)
    assert expression in str(caught.value)


def test_python_code_is_only_a_word(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("the filter evaluated code")

    monkeypatch.setattr("builtins.eval", forbidden)
    monkeypatch.setattr("builtins.exec", forbidden)
    matcher = compile_filter("__import__ or os.system")
    assert matcher(["mrr"]) is False
    assert matcher(["__IMPORT__"]) is True
