"""``Trials``: a run's trial values as doubles, for runs read from a store.

A store read makes one values sequence per test run: 3.6 million of ten
trials at CSIT's size.  As tuples of Python floats they take about 370
bytes each, a third of a loaded store; as bytes of their own, about 190.
So a store's runs do not copy their doubles at all: each is a window
(two offsets) on the store column's buffer, which the read keeps anyway,
about 100 bytes a run (the window's 64 and an offset it shares with the
next run's window).  No float object is made per trial either way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np
import numpy.typing as npt


class Trials(Sequence[float]):
    """Immutable trial values in native-order doubles; behaves as the tuple of them.

    It equals, and hashes like, the tuple of its values, so a run read from a
    store equals the same run parsed from its archive.  Indexing gives
    floats (a slice gives a tuple); ``numpy.asarray`` copies the doubles at
    once.  ``statistics`` is (average, population stdev) as the store wrote
    them beside the values, if it did: :func:`.trial_statistics` takes them
    instead of summing the trials again.
    """

    # four slots: 64 bytes an object, where five took 80 (a store read makes
    # millions); the statistics are a tuple only where they are known
    __slots__ = ("_doubles", "_high", "_low", "_statistics")

    def __init__(self, packed: bytes, statistics: tuple[float, float] | None = None) -> None:
        if len(packed) % 8:
            raise ValueError(f"{len(packed)} bytes are not whole doubles")
        self._doubles: bytes | npt.NDArray[np.float64] = packed
        self._low, self._high = 0, len(packed) // 8
        self._statistics = statistics

    @classmethod
    def within(
        cls,
        doubles: npt.NDArray[np.float64],
        low: int,
        high: int,
        statistics: tuple[float, float] | None = None,
    ) -> Trials:
        """``doubles[low:high]`` without a copy: ``doubles`` (one-dimensional, never
        written) is shared by every run of a store column and lives as long as one does."""
        made = cls.__new__(cls)
        made._doubles, made._low, made._high = doubles, low, high
        made._statistics = statistics
        return made

    @property
    def statistics(self) -> tuple[float, float] | None:
        return self._statistics

    def _view(self) -> memoryview:
        doubles = memoryview(self._doubles)
        if doubles.format != "d":  # bytes of its own
            doubles = doubles.cast("d")
        return doubles[self._low : self._high]

    def __len__(self) -> int:
        return self._high - self._low

    def __iter__(self) -> Iterator[float]:
        return iter(self._view())

    @overload
    def __getitem__(self, index: int) -> float: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[float, ...]: ...

    def __getitem__(self, index: int | slice) -> float | tuple[float, ...]:
        found = self._view()[index]
        return tuple(found) if isinstance(found, memoryview) else found

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Trials):
            return self._view() == other._view()
        if isinstance(other, tuple):
            return tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))

    def __reduce__(self) -> tuple[type[Trials], tuple[bytes, tuple[float, float] | None]]:
        return Trials, (self._view().tobytes(), self.statistics)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> npt.NDArray[Any]:
        doubles = np.frombuffer(self._doubles, dtype=np.float64)[self._low : self._high]
        return np.array(doubles, dtype=dtype or np.float64)
