"""The exact search's state as plain arrays, to resume it in a later build.

A daily rebuild adds one run per series.  Keeping each series' search state
between builds turns its grouping into one search step instead of a whole
search (see :class:`~.incremental.IncrementalClassifier`).  The state lives
in the build's cache folder, so it is untrusted input like any cache entry:
it is kept as typed arrays (never pickled) behind a fixed binary header, and
every index in it is checked against the runs it claims to describe before
a search uses it.  A state that fails a check is refused with
``ValueError`` and the series is grouped afresh.

The runs themselves are not saved: the caller has them, and passes the ones
the state has seen when it resumes.
"""

from __future__ import annotations

import functools
import itertools
import math
import struct
from dataclasses import dataclass, fields
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

MAGIC = b"sphinxcontrib-trending/saved-search/3\n"
"""Version 3: a binary header, where version 2 had a JSON one (a tenth of a new run's
grouping went to writing and reading it); version 2 read the survivors' predecessors
from the history instead of keeping them twice."""


@dataclass(frozen=True)
class SavedSearch:
    """What :class:`~.exact.ExactSearch` keeps between runs, but the runs.

    ``runs`` and ``trials`` say which prefix of a history it covers; the
    model is ``(max_value, unit)`` with tables for ``table_size`` trials.
    Survivor ``k`` has statistics ``groups[:, k]`` (trials, mean, spread,
    start) and ``best[k]`` bits; ``history_*`` hold every start's
    predecessors as it opened (``history_begin[j]`` up to the next start's),
    the survivors' for the search and all for the backtrack.
    """

    runs: int
    trials: int
    max_value: float
    unit: float
    table_size: int
    block: int
    groups: FloatArray
    best: FloatArray
    doomed: IntArray
    """1 for a survivor to drop at the next run, else 0 (all 0: keep every one)."""
    pending_from: IntArray
    pending_key: FloatArray
    pending_prev: FloatArray
    history_begin: IntArray
    history_from: IntArray
    history_key: FloatArray
    history_prev: FloatArray

    def to_bytes(self) -> bytes:
        """The numbers and every array's shape in a fixed header, then the arrays.

        Arrays are little-endian and exact, each of its field's type; a state
        is about 12 KB for a series of 180 runs of ten trials.
        """
        arrays = [getattr(self, name) for name, _ in _ARRAYS]
        shape = [side for array in arrays for side in array.shape]
        numbers = [getattr(self, name) for name, _ in _NUMBERS]
        head = _HEAD.pack(*numbers, *shape)
        # joined from the arrays' own buffers: no bytes object made of each first
        data = [
            np.ascontiguousarray(array, dtype=dtype)
            for array, (_, dtype) in zip(arrays, _ARRAYS, strict=True)
        ]
        return b"".join([MAGIC, head, *data])

    @classmethod
    def from_bytes(cls, data: bytes) -> SavedSearch:
        """The state :meth:`to_bytes` wrote; ``ValueError`` if it is not one.

        Its arrays are views of one writable copy of ``data``'s arrays: a
        compiled function takes a read-only array through numba's slow way of
        telling its type (the check, :meth:`check`, took a fifth longer so),
        and a search need not copy what it only reads.  Every value is eight
        bytes, so the arrays are read as one block of doubles and each taken
        as a slice of it (integers reinterpreted, never converted).  Its
        indices are checked (:meth:`check`) where a search resumes from it, once.
        """
        start = len(MAGIC)
        if not data.startswith(MAGIC) or len(data) < start + _HEAD.size:
            raise ValueError("not a saved search")
        head = _HEAD.unpack_from(data, start)
        sides = (*head[len(_NUMBERS) :], 1)  # a one-dimensional array's second side is 1
        offset = start + _HEAD.size
        if min(sides) < 0:
            name = next(name for name, _, _, first, stop in _LAYOUT if min(head[first:stop]) < 0)
            raise ValueError(f"a saved search's {name} has no valid shape")
        counts = [sides[first] * sides[second] for first, second in _COUNTED]
        total = sum(counts)
        if offset + 8 * total != len(data):
            if offset + 8 * total < len(data):
                raise ValueError("a saved search has bytes beyond its arrays")
            ends = zip(_LAYOUT, itertools.accumulate(counts), strict=True)
            name = next(row[0] for row, end in ends if offset + 8 * end > len(data))
            raise ValueError(f"a saved search's {name} does not fill its shape")
        block = np.frombuffer(data, dtype=_FLOAT, offset=offset).copy()
        values: dict[str, Any] = dict(zip(_NUMBER_NAMES, head, strict=False))
        at = 0
        for (name, dtype, is_float, first, stop), count in zip(_LAYOUT, counts, strict=True):
            array = block[at : at + count]
            at += count
            if not is_float:
                array = array.view(dtype)
            if not _NATIVE:  # a search takes this machine's byte order
                array = array.astype(dtype.newbyteorder("="))
            values[name] = array if stop - first == 1 else array.reshape(head[first:stop])
        return cls.assembled(values)

    @classmethod
    def assembled(cls, values: dict[str, Any]) -> SavedSearch:
        """``SavedSearch(**values)``, every field given, without the frozen constructor's
        sixteen guarded assignments: they cost a fifth of decoding a state, and a build
        makes two states per series it extends (one read, one saved)."""
        state = object.__new__(cls)
        state.__dict__.update(values)
        return state

    def check(self) -> None:
        """Raise ``ValueError`` unless every index stays within what the state describes."""
        count = self.best.shape[0]
        history = self.history_from.shape[0]
        _expect(self.runs >= 1 and self.trials >= self.runs, "runs and trials")
        _expect(
            math.isfinite(self.max_value) and self.max_value > 0.0 and self.unit > 0.0,
            "the model's scale",
        )
        _expect(self.trials < self.table_size <= 1 << 31, "the size table")
        _expect(1 <= self.block <= 1 << 16, "the block length")
        _expect(self.groups.shape == (4, count) and count >= 1, "the survivors' statistics")
        _expect(self.doomed.shape == (count,), "doomed")
        _expect(self.pending_from.shape[0] >= 1, "the pending predecessors")
        for name in ("pending_key", "pending_prev"):
            _expect(getattr(self, name).shape == self.pending_from.shape, name)
        _expect(self.history_begin.shape == (self.runs,), "the history's starts")
        for name in ("history_key", "history_prev"):
            _expect(getattr(self, name).shape == (history,), name)
        if _compiled().state_in_range(
            *(getattr(self, name) for name in _FLOAT_ARRAYS),
            self.doomed,
            self.pending_from,
            self.history_begin,
            self.history_from,
            self.runs,
            self.trials,
        ):
            return  # else the tests one by one, to say which failed
        floats = [getattr(self, name).ravel() for name in _FLOAT_ARRAYS]
        if not np.isfinite(np.concatenate(floats)).all():  # one test for all, then which
            for name, values in zip(_FLOAT_ARRAYS, floats, strict=True):
                _expect(bool(np.isfinite(values).all()), name)
        # the search indexes its size table by trials and the history by starts
        trials, starts = self.groups[0], self.groups[3]
        _expect(_whole(trials) and _within(trials, 1, self.trials), "the survivors' trial counts")
        ascending = bool((starts[1:] > starts[:-1]).all())
        _expect(_whole(starts) and ascending, "the survivors' starts")
        _expect(_within(starts, 0, self.runs - 1, ascending), "the survivors' starts")
        _expect(_within(self.doomed, 0, 1), "the survivors to drop")
        _expect(_within(self.pending_from, -1, self.runs - 1), "the pending predecessors")
        # every start has one predecessor at least: its range is not empty
        ascending = bool((self.history_begin[1:] > self.history_begin[:-1]).all())
        _expect(_within(self.history_begin, 0, history - 1, ascending), "the history's ranges")
        _expect(ascending, "the history's order")
        _expect(_within(self.history_from, -1, self.runs - 1), "the history's predecessors")


@functools.cache
def _compiled() -> ModuleType:
    """The compiled loops, where a search resumes (they are loaded there anyway), so that
    the process that only reads and writes states never imports numba."""
    from sphinxcontrib_trending.analysis.exact_loading import compiled_loops

    return compiled_loops()


def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise ValueError(f"the saved search's {what} are not consistent")


def _within(values: IntArray, low: int, high: int, ascending: bool = False) -> bool:
    """Whether every value is in ``[low, high]``; of ``ascending`` values, the first and last."""
    if not len(values):
        return True
    if ascending:
        return int(values[0]) >= low and int(values[-1]) <= high
    return int(values.min()) >= low and int(values.max()) <= high


def _whole(values: FloatArray) -> bool:
    return bool((values == np.floor(values)).all())


_FLOAT = np.dtype("<f8")
_DTYPES = {"FloatArray": _FLOAT, "IntArray": np.dtype("<i8")}
_NUMBERS = tuple(
    (field.name, "q" if field.type == "int" else "d")
    for field in fields(SavedSearch)
    if field.type not in _DTYPES
)
"""The fields that are numbers, in order, with their ``struct`` codes."""
_ARRAYS = tuple(
    (field.name, _DTYPES[field.type]) for field in fields(SavedSearch) if field.type in _DTYPES
)
"""The fields that are arrays, in order, with their types as stored."""
_DIMENSIONS = {"groups": 2}
"""Arrays of more than one dimension; the others have one."""
_HEAD = struct.Struct(
    "<"
    + "".join(code for _, code in _NUMBERS)
    + "q" * sum(_DIMENSIONS.get(name, 1) for name, _ in _ARRAYS)
)
"""The header: the numbers, then every array's sides."""
_NUMBER_NAMES = tuple(name for name, _ in _NUMBERS)
_LAYOUT = tuple(
    (name, dtype, dtype == _FLOAT, first, first + _DIMENSIONS.get(name, 1))
    for (name, dtype), first in zip(
        _ARRAYS,
        itertools.accumulate(
            (_DIMENSIONS.get(name, 1) for name, _ in _ARRAYS), initial=len(_NUMBERS)
        ),
        strict=False,
    )
)
"""Per array: its name, type, whether it is of doubles, and where its sides lie in the
header (first, stop)."""
_COUNTED = tuple(
    (first - len(_NUMBERS), stop - 1 - len(_NUMBERS) if stop - first == 2 else -1)
    for _, _, _, first, stop in _LAYOUT
)
"""Per array: where its sides lie among the header's sides (-1: the 1 that ends them)."""
_NATIVE = _FLOAT.isnative
"""Whether this machine's byte order is the states' (little-endian)."""
_FLOAT_ARRAYS = tuple(field.name for field in fields(SavedSearch) if field.type == "FloatArray")
HEADER_END = len(MAGIC) + _HEAD.size
"""Where a state's arrays begin."""
