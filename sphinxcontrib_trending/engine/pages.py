"""A history's arrays on small pages, where huge ones cost a build more.

NumPy advises Linux to back every array of 4 MB or more with transparent
huge pages (``madvise(MADV_HUGEPAGE)``).  On a virtual machine that hands
free memory back to its host (virtio-balloon's free page reporting, as the
one we measure on does, in blocks of 8 MB), a huge page is mostly carved
from such a block, and the host backs it again on its first touch; small
pages mostly come from memory the machine used a moment ago.  (No
compaction stalled: ``compact_stall`` in ``/proc/vmstat`` stayed at 0.)
A build makes the columns of every history once and reads them a few
times: backing huge pages again costs more than they save.  At 360 builds
of 4,000 series (160 MB of new arrays), making the columns took 0.08 to
0.10 s without the advice and 0.16 to 0.25 s with it (new builds); 240 MB
filled in 12 MB arrays took 57 to 436 ms with it and 114 to 159 ms
without, run after run.  A history of 60 builds has no array that large.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np


def _advice_setter() -> Callable[[bool], bool] | None:
    """NumPy's switch of the advice (it returns the previous setting), or None
    where this NumPy has none under its 2.x or 1.x name."""
    for owner in ("_core", "core"):
        module = getattr(np, owner, None)
        setter = getattr(getattr(module, "multiarray", None), "_set_madvise_hugepage", None)
        if setter is not None:
            return setter  # type: ignore[no-any-return]
    return None


@contextmanager
def small_pages() -> Iterator[None]:
    """NumPy's new arrays without the huge-page advice inside; the previous setting after."""
    setter = _advice_setter()
    if setter is None:
        yield
        return
    before = setter(False)
    try:
        yield
    finally:
        setter(before)
