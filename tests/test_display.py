"""A test's name on a line of its own names its testbed once."""

from __future__ import annotations

import pytest

from sphinxcontrib_trending.display import with_testbed


@pytest.mark.parametrize(
    ("name", "testbed", "shown"),
    [
        ("ip4base-mrr", "2n-skx", "ip4base-mrr [2n-skx]"),
        (
            "2n-skx 10ge2p1x710 dpdk 64b 1t1c ip4base-mrr",
            "2n-skx",
            "2n-skx 10ge2p1x710 dpdk 64b 1t1c ip4base-mrr",
        ),
        ("2n-skx-like-name", "2n-skx", "2n-skx-like-name [2n-skx]"),
        ("ip4base-mrr", None, "ip4base-mrr"),
        ("ip4base-mrr", "", "ip4base-mrr"),
        ("2N-ICX ip4", "2n-icx", "2N-ICX ip4"),
    ],
)
def test_the_testbed_is_added_unless_the_name_leads_with_it(
    name: str, testbed: str | None, shown: str
) -> None:
    assert with_testbed(name, testbed) == shown
