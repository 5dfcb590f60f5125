"""The per-process memo files each analysis under one metric's identity."""

from __future__ import annotations

from dataclasses import replace
from typing import cast

import pytest

from sphinxcontrib_trending.analysis import history
from sphinxcontrib_trending.analysis.history import histories
from sphinxcontrib_trending.analysis.summary import TrendOptions
from sphinxcontrib_trending.sphinxext.process_memo import LoadedSource, trends_for
from tests import hand_built


def test_histories_of_two_metrics_are_refused_as_one_analysis() -> None:
    (ndr,) = histories(hand_built.builds({"t": lambda n: 1e6}, range(1, 4)), "mrr")
    pdr = replace(ndr, metric="pdr")
    with pytest.raises(ValueError, match="several metrics"):
        trends_for(cast(LoadedSource, None), [ndr, pdr], TrendOptions(), None)


def test_nothing_selected_is_nothing_analysed() -> None:
    assert (
        trends_for(
            cast(LoadedSource, None), cast(list[history.TestHistory], []), TrendOptions(), None
        )
        == []
    )
