"""Columns whose values are made when read, not when the store is read.

A site reads a run's average millions of times and its message, trials or
percentiles a few hundred: these keep such a column as it came (windows on
Arrow's doubles, Arrow's texts, one value repeated) and make a row's value
on request.  Each joins others of its kind without making a value.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Sequence
from typing import Any, overload

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from sphinxcontrib_trending.ingest.trials import Trials

NamesOf = Callable[[pa.Array], list[str | None]]
"""The texts of a dictionary as one list per dictionary (see :meth:`.SharedValues.names`)."""


class TextColumn(Sequence[str | None]):
    """Texts left in their Arrow columns, each taken when read: a run's message
    (nearly every one is its own, and few are shown).

    Not even taken out of the column: at CSIT's size, keeping every build's
    taken messages made each take a page fault's worth slower, 2 s in all.
    """

    __slots__ = ("_bounds", "_parts")

    TAKEN_IN_BULK = 32
    """Rows of one part that :meth:`taken` reads in one Arrow take rather than one by one."""

    def __init__(self, texts: pa.ChunkedArray, rows: npt.NDArray[np.intp] | None) -> None:
        """Row ``r`` is ``texts[rows[r]]``; with no ``rows``, ``texts[r]``: a kept
        history's column of millions of rows needs no array of their numbers."""
        self._parts = [(texts, rows)]
        self._bounds = [0, _part_length(self._parts[0])]

    @classmethod
    def joined(cls, parts: Sequence[TextColumn]) -> TextColumn:
        made = cls.__new__(cls)
        made._parts = [part for column in parts for part in column._parts]
        made._bounds = [0, *itertools.accumulate(map(_part_length, made._parts))]
        return made

    @classmethod
    def of_arrow(cls, texts: pa.ChunkedArray) -> TextColumn:
        """Every row of ``texts``, in order: a column kept as Arrow (see :meth:`arrow`)."""
        return cls(texts, None)

    def arrow(self) -> pa.Array:
        """Its rows as one Arrow string array, taken in bulk (what a kept history writes)."""
        taken = [
            texts if rows is None else texts.take(pa.array(rows)) for texts, rows in self._parts
        ]
        if not taken:
            return pa.array([], type=pa.string())
        return pa.concat_arrays([chunk for part in taken for chunk in part.chunks])

    def __len__(self) -> int:
        return self._bounds[-1]

    def taken(self, rows: npt.NDArray[np.intp]) -> list[str | None]:
        """The texts of ``rows`` (none negative), in order, read in one pass.

        A graph page shows the messages of thousands of failed runs: read
        one at a time, each paid for finding its part and its row more than
        for the text.  A part holding many of them (a kept history's) gives
        them in one Arrow take; the parts of inputs read mostly hold a row
        or two each, which a take each would cost more than a read.
        """
        if not len(rows):
            return []
        bounds = np.array(self._bounds)
        parts = np.searchsorted(bounds, rows, side="right") - 1
        by_part = np.argsort(parts, kind="stable")
        held, starts = np.unique(parts[by_part], return_index=True)
        found: list[str | None] = [None] * len(rows)
        for part, low, high in zip(
            held.tolist(), starts.tolist(), [*starts[1:].tolist(), len(rows)], strict=True
        ):
            texts, mine = self._parts[part]
            places = by_part[low:high]
            at = rows[places] - bounds[part]
            if mine is not None:
                at = mine[at]
            if len(at) >= self.TAKEN_IN_BULK:
                values = texts.take(pa.array(at)).to_pylist()
            else:
                values = [texts[row].as_py() for row in at.tolist()]
            for place, value in zip(places.tolist(), values, strict=True):
                found[place] = value
        return found

    @overload
    def __getitem__(self, index: int) -> str | None: ...

    @overload
    def __getitem__(self, index: slice) -> TextColumn: ...

    def __getitem__(self, index: int | slice) -> str | TextColumn | None:
        if isinstance(index, slice):
            low, high, step = index.indices(len(self))
            if step != 1:
                raise ValueError("a text column is sliced in steps of one")
            pieces = []
            for (texts, rows), start in zip(self._parts, self._bounds, strict=False):
                first, last = max(low - start, 0), max(high - start, 0)
                if rows is None:
                    mine = np.arange(min(first, len(texts)), min(last, len(texts)))
                else:
                    mine = rows[first:last]
                if len(mine):
                    pieces.append(TextColumn(texts, mine))
            return TextColumn.joined(pieces)
        at = range(len(self))[index]
        part = bisect.bisect_right(self._bounds, at) - 1
        texts, rows = self._parts[part]
        row = at - self._bounds[part]
        return texts[row if rows is None else int(rows[row])].as_py()


def _part_length(part: tuple[pa.ChunkedArray, npt.NDArray[np.intp] | None]) -> int:
    texts, rows = part
    return len(texts) if rows is None else len(rows)


class CodedTexts(Sequence[str | None]):
    """Texts a store repeats from build to build (test ids, statuses), a code per row
    into one list of them.

    The store keeps these columns dictionary-encoded, each dictionary shared
    by the inputs it covers: read as codes, a build's rows make no text
    object, several builds join as arrays, and a history's numbering looks
    up each text once per dictionary, not once per run
    (:meth:`.history._Gathered._numbered`).
    """

    __slots__ = ("codes", "names")

    def __init__(self, names: list[str | None], codes: npt.NDArray[np.int32]) -> None:
        """Row ``r`` is ``names[codes[r]]``; codes are int32, as Arrow's dictionary
        indices come: kept for every run of a build, and joined, at half the bytes."""
        self.names = names
        self.codes = codes

    @classmethod
    def of(cls, column: pa.ChunkedArray, names_of: NamesOf) -> CodedTexts:
        """``column``'s texts, by its dictionaries where it has them (else encoded here)."""
        parts = []
        for chunk in column.chunks:
            if not pa.types.is_dictionary(chunk.type):
                chunk = pc.dictionary_encode(chunk)
            names = names_of(chunk.dictionary)
            indices = chunk.indices
            if indices.null_count:  # a null text reads as None
                names = [*names, None]
                indices = pc.fill_null(indices, len(names) - 1)
            parts.append(cls(names, indices.to_numpy().astype(np.int32, copy=False)))
        return cls.joined(parts)

    @classmethod
    def joined(cls, parts: Sequence[CodedTexts]) -> CodedTexts:
        """The rows of ``parts``, one after the other, in codes of one list of names."""
        if not parts:
            return cls([], np.zeros(0, dtype=np.int32))
        names = parts[0].names
        if all(part.names is names for part in parts):
            return cls(names, np.concatenate([part.codes for part in parts]))
        united: dict[str | None, int] = {}
        codes = []
        # recoded a run of parts at a time: the builds of one store pass share their names
        for _, run in itertools.groupby(parts, key=lambda part: id(part.names)):
            same = list(run)
            mapping = np.array(
                [united.setdefault(name, len(united)) for name in same[0].names], dtype=np.int32
            )
            # the first run's names mostly keep their codes: a kept history's millions
            # of rows are then not mapped, nor copied but once, into the joined codes
            if np.array_equal(mapping, np.arange(len(mapping))):
                codes.extend(part.codes for part in same)
            else:
                codes.append(mapping[np.concatenate([part.codes for part in same])])
        return cls(list(united), np.concatenate(codes))

    def spread(self, at: npt.NDArray[np.intp], count: int) -> CodedTexts:
        """``count`` rows holding these at the positions ``at``, None at the others."""
        codes = np.full(count, len(self.names), dtype=np.int32)
        codes[at] = self.codes
        return CodedTexts([*self.names, None], codes)

    def distinct(self) -> set[str | None]:
        """The texts some row holds: a look at each code, not at each row."""
        held = np.flatnonzero(np.bincount(self.codes, minlength=len(self.names)))
        return set(map(self.names.__getitem__, held.tolist()))

    def __len__(self) -> int:
        return len(self.codes)

    def made(self) -> list[str | None]:
        """The list of its rows, made at once."""
        return list(map(self.names.__getitem__, self.codes.tolist()))

    def taken(self, rows: list[int] | npt.NDArray[np.intp]) -> list[str | None]:
        """The texts of ``rows``, in one pass."""
        return list(map(self.names.__getitem__, self.codes[rows].tolist()))

    @overload
    def __getitem__(self, index: int) -> str | None: ...

    @overload
    def __getitem__(self, index: slice) -> CodedTexts: ...

    def __getitem__(self, index: int | slice) -> str | CodedTexts | None:
        if isinstance(index, slice):
            return CodedTexts(self.names, self.codes[index])
        return self.names[self.codes[index]]


class SameValue(Sequence[Any]):
    """One value in every row (a store's runs have no percentiles: ``()`` each)."""

    __slots__ = ("_count", "_value")

    def __init__(self, value: Any, count: int) -> None:
        self._value = value
        self._count = count

    @classmethod
    def joined(cls, parts: Sequence[SameValue]) -> SameValue | list[Any]:
        """One column if every part repeats the same value, else their values."""
        if parts and all(part._value == parts[0]._value for part in parts):
            return cls(parts[0]._value, sum(part._count for part in parts))
        return [value for part in parts for value in part]

    def __len__(self) -> int:
        return self._count

    def made(self) -> list[Any]:
        """The list of its rows, made at once."""
        return [self._value] * self._count

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> SameValue: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return SameValue(self._value, len(range(self._count)[index]))
        if not -self._count <= index < self._count:
            raise IndexError(f"row {index} of {self._count}")
        return self._value


class TrialsColumn(Sequence[Trials | tuple[()]]):
    """Rows' values as windows on their columns' doubles, a :class:`Trials` made per
    row read: a site reads every run's average and few runs' values.

    A row whose chunk is -1 has no values (a test that did not measure the
    metric): it reads as an empty tuple.
    """

    __slots__ = ("_chunks", "_doubles", "_highs", "_lows")

    def __init__(
        self,
        doubles: list[npt.NDArray[np.float64]],
        chunks: npt.NDArray[np.integer[Any]],
        lows: npt.NDArray[np.integer[Any]],
        highs: npt.NDArray[np.integer[Any]],
    ) -> None:
        """Row ``r``'s values are ``doubles[chunks[r]][lows[r]:highs[r]]``: int32 where
        they fit (a list column's offsets always do), kept for every run of a build."""
        self._doubles = doubles
        self._chunks = chunks
        self._lows = lows
        self._highs = highs

    @classmethod
    def spread(cls, found: TrialsColumn, at: npt.NDArray[np.intp], count: int) -> TrialsColumn:
        """``count`` rows holding ``found``'s at the positions ``at``, the others empty."""
        chunks = np.full(count, -1, dtype=found._chunks.dtype)
        lows = np.zeros(count, dtype=found._lows.dtype)
        highs = np.zeros(count, dtype=found._highs.dtype)
        chunks[at], lows[at], highs[at] = found._chunks, found._lows, found._highs
        return cls(found._doubles, chunks, lows, highs)

    @classmethod
    def joined(cls, parts: Sequence[TrialsColumn]) -> TrialsColumn:
        """The rows of ``parts``, one after the other.

        Consecutive parts on one list of doubles (slices of one column, as a
        store read's passes cut them into builds) keep sharing it.
        """
        if not parts:
            empty = np.zeros(0, dtype=np.int32)
            return cls([], empty, empty, empty)
        doubles: list[npt.NDArray[np.float64]] = []
        firsts = []  # per part: where its list of doubles starts in the joined one
        last = None
        for part in parts:
            if part._doubles is not last:
                last = part._doubles
                doubles.extend(last)
            firsts.append(len(doubles) - len(last))
        chunks = np.concatenate([part._chunks for part in parts])
        low = 0
        for part, first in zip(parts, firsts, strict=True):  # in place: no column-long copies
            high = low + len(part)
            if first:
                mine = chunks[low:high]
                np.add(mine, first, out=mine, where=mine >= 0)
            low = high
        return cls(
            doubles,
            chunks,
            np.concatenate([part._lows for part in parts]),
            np.concatenate([part._highs for part in parts]),
        )

    @classmethod
    def of_arrow(cls, lists: pa.ChunkedArray) -> TrialsColumn:
        """The rows of a list-of-doubles column, each a window on its chunk's values
        (memory-mapped ones stay so); a null row has no values.

        A chunk's offsets are its rows' windows as they are: a kept history's
        record of a million runs maps them from its file, where copies of them
        were new memory a build paid for on first touch (a tenth of a second
        at 1.5 million runs on a machine whose new pages cost 1 ms per MB).
        """
        parts = []
        for chunk in lists.chunks:
            offsets = chunk.offsets.to_numpy()
            chunks = np.zeros(len(chunk), dtype=np.int32)
            if chunk.null_count:
                chunks[chunk.is_null().to_numpy(zero_copy_only=False)] = -1
            parts.append(cls([chunk.values.to_numpy()], chunks, offsets[:-1], offsets[1:]))
        return parts[0] if len(parts) == 1 else cls.joined(parts)

    def arrow(self) -> pa.ListArray:
        """Its rows as one Arrow list of doubles (null: no values), gathered in bulk."""
        valid = self._chunks >= 0
        lengths = np.where(valid, self._highs - self._lows, 0).astype(np.int64)
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        used = np.unique(self._chunks[valid])
        sizes = [len(self._doubles[chunk]) for chunk in used.tolist()]
        base = np.zeros(len(self._doubles) + 1, dtype=np.int64)
        base[used] = np.cumsum([0, *sizes[:-1]]) if sizes else []
        flat = (
            np.concatenate([self._doubles[chunk] for chunk in used.tolist()])
            if sizes
            else np.zeros(0, dtype=np.float64)
        )
        starts = np.where(valid, self._lows + base[self._chunks], 0)
        index = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1])
        return pa.ListArray.from_arrays(
            pa.array(offsets.astype(np.int32)),
            pa.array(flat[index], type=pa.float64()),
            mask=pa.array(~valid),
        )

    def __len__(self) -> int:
        return len(self._chunks)

    @overload
    def __getitem__(self, index: int) -> Trials | tuple[()]: ...

    @overload
    def __getitem__(self, index: slice) -> TrialsColumn: ...

    def __getitem__(self, index: int | slice) -> Trials | tuple[()] | TrialsColumn:
        if isinstance(index, slice):
            return TrialsColumn(
                self._doubles, self._chunks[index], self._lows[index], self._highs[index]
            )
        chunk = int(self._chunks[index])
        if chunk < 0:
            return ()
        return Trials.within(self._doubles[chunk], int(self._lows[index]), int(self._highs[index]))
