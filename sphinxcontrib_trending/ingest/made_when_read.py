"""A tuple whose items are made when it is read, for a store's tests and a history's runs.

A store read gives millions of items few of which any view reads: a
build's tests, a history's runs.  Each is kept as its columns and made
when asked for, one alone or all at once (then kept); for every other
purpose it is the tuple of its items.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeVar, overload

_Item = TypeVar("_Item")


class MadeWhenRead(Sequence[_Item]):
    """The tuple of :meth:`_make_all`'s items, made on first need.

    It equals, hashes, prints and pickles as that tuple, so what was read
    from a store equals what was parsed; an item asked for before then is
    made alone (:meth:`_make_one`).
    """

    __slots__ = ("_made",)

    def __init__(self) -> None:
        self._made: tuple[_Item, ...] | None = None

    def _make_all(self) -> tuple[_Item, ...]:
        raise NotImplementedError

    def _make_one(self, index: int) -> _Item:
        """Item ``index`` (negative counts from the end; IndexError as a tuple's)."""
        raise NotImplementedError

    @property
    def made(self) -> tuple[_Item, ...]:
        if self._made is None:
            self._made = self._make_all()
        return self._made

    @overload
    def __getitem__(self, index: int) -> _Item: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[_Item, ...]: ...

    def __getitem__(self, index: int | slice) -> _Item | tuple[_Item, ...]:
        if self._made is not None or isinstance(index, slice):
            return self.made[index]
        return self._make_one(index)

    def __iter__(self) -> Iterator[_Item]:
        return iter(self.made)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (tuple, MadeWhenRead)):
            return self.made == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.made)

    def __add__(self, other: Sequence[_Item]) -> tuple[_Item, ...]:
        return self.made + tuple(other)

    def __radd__(self, other: Sequence[_Item]) -> tuple[_Item, ...]:
        return tuple(other) + self.made

    def __repr__(self) -> str:
        return repr(self.made)

    def __reduce__(self) -> tuple[Any, ...]:
        return tuple, (self.made,)
