"""The exact search's state as plain arrays, to resume it in a later build.

A daily rebuild adds one run per series.  Keeping each series' search state
between builds turns its grouping into one search step instead of a whole
search (see :class:`~.incremental.IncrementalClassifier`).  The state lives
in the build's cache folder, so it is untrusted input like any cache entry:
it is kept as typed arrays (never pickled) behind a small JSON header, and
every index in it is checked against the runs it claims to describe before
a search uses it.  A state that fails a check is refused with
``ValueError`` and the series is grouped afresh.

The runs themselves are not saved: the caller has them, and passes the ones
the state has seen when it resumes.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

_KINDS = {"f8": np.float64, "i8": np.int64}
_DTYPES = {"f8": np.dtype("<f8"), "i8": np.dtype("<i8")}
MAGIC = b"sphinxcontrib-trending/saved-search/2\n"
"""Version 2: the survivors' predecessors are read from the history, not kept twice."""


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
        """A small JSON header (the numbers, each array's kind and shape), then the arrays.

        Arrays are little-endian and exact; a state is about 12 KB for a
        series of 180 runs of ten trials.
        """
        header: dict[str, Any] = {}
        arrays = []
        for name, _kind in _FIELDS:
            value = getattr(self, name)
            if isinstance(value, np.ndarray):
                kind = "f8" if value.dtype == np.float64 else "i8"
                header[name] = [kind, list(value.shape)]
                arrays.append(value.astype(_DTYPES[kind], copy=False).tobytes())
            else:
                header[name] = value
        head = json.dumps(header, separators=(",", ":")).encode()
        return b"".join([MAGIC, struct.pack("<I", len(head)), head, *arrays])

    @classmethod
    def from_bytes(cls, data: bytes) -> SavedSearch:
        """The state :meth:`to_bytes` wrote; ``ValueError`` if it is not one.

        Its arrays are read-only views of ``data``: a search copies what it
        resumes from (:meth:`.ExactSearch.resume`), so copying here too cost
        a fifth of the decoding.  Its indices are checked (:meth:`check`)
        where a search resumes from it, once.
        """
        if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 4:
            raise ValueError("not a saved search")
        (length,) = struct.unpack_from("<I", data, len(MAGIC))
        start = len(MAGIC) + 4
        try:
            header = json.loads(data[start : start + length])
        except (UnicodeDecodeError, ValueError):
            raise ValueError("a saved search's header is not JSON") from None
        if not isinstance(header, dict):
            raise ValueError("a saved search's header is not an object")
        offset = start + length
        values: dict[str, Any] = {}
        for name, kind in _FIELDS:
            if name not in header:
                raise ValueError(f"a saved search has no {name}")
            value = header[name]
            if kind is None:
                values[name], offset = _array(name, value, data, offset)
            else:
                values[name] = _scalar(name, value, kind)
        if offset != len(data):
            raise ValueError("a saved search has bytes beyond its arrays")
        return cls(**values)

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


def _scalar(name: str, value: Any, kind: str) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"a saved search's {name} is not a number")
    if kind == "int":
        if not isinstance(value, int):
            raise ValueError(f"a saved search's {name} is not a whole number")
        return value
    return float(value)


def _whole(values: FloatArray) -> bool:
    return bool((values == np.floor(values)).all())


def _array(name: str, value: Any, data: bytes, offset: int) -> tuple[npt.NDArray[Any], int]:
    """The array ``value`` (kind and shape) declares at ``offset``, and where the next starts."""
    if not (isinstance(value, list) and len(value) == 2):
        raise ValueError(f"a saved search's {name} is not a declared array")
    kind, shape = value
    if kind not in _KINDS or not isinstance(shape, list):
        raise ValueError(f"a saved search's {name} is not a declared array")
    if not all(type(side) is int and side >= 0 for side in shape):
        raise ValueError(f"a saved search's {name} has no valid shape")
    count = math.prod(shape)
    end = offset + 8 * count
    if end > len(data):
        raise ValueError(f"a saved search's {name} does not fill its shape")
    array = np.frombuffer(data, dtype=_DTYPES[kind], count=count, offset=offset)
    return array.astype(_KINDS[kind], copy=False).reshape(shape), end


_FIELDS: tuple[tuple[str, str | None], ...] = tuple(
    (field.name, field.type if field.type in ("int", "float") else None)
    for field in fields(SavedSearch)
)
"""Each field's name, and ``"int"``/``"float"`` for a number or None for an array, in order."""
_FLOAT_ARRAYS = tuple(field.name for field in fields(SavedSearch) if field.type == "FloatArray")
