"""NumPy's huge-page advice is off inside :func:`small_pages` and as it was after."""

from __future__ import annotations

import numpy as np
import pytest

from sphinxcontrib_trending.engine.pages import small_pages


def _advised() -> bool:
    module = getattr(np, "_core", None) or np.core
    return bool(module.multiarray._get_madvise_hugepage())


@pytest.mark.parametrize("before", [True, False])
def test_the_advice_is_off_inside_and_as_it_was_after_even_when_the_block_fails(
    before: bool,
) -> None:
    module = getattr(np, "_core", None) or np.core
    original = module.multiarray._set_madvise_hugepage(before)
    try:
        with small_pages():
            assert not _advised()
        assert _advised() is before
        with pytest.raises(RuntimeError), small_pages():
            raise RuntimeError("stopped")
        assert _advised() is before
    finally:
        module.multiarray._set_madvise_hugepage(original)
