"""A mapping keyed by object identity, for facts about one node of one kernel.

Kernel-IR nodes are frozen dataclasses that compare and hash by value: two ``BlockSync`` with the same
reason, or two clones of one loop, are equal wherever they stand. A fact about a position in the
kernel (the ``smem`` analysis's live ranges) belongs to one of them, so it is keyed by the object
itself. The map holds its keys, so an ``id`` is never reused by another object while it is in the map.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class IdentityMap(MutableMapping, Generic[K, V]):
    """``dict``-like, but ``key`` matches only the very object stored, never an equal one."""

    def __init__(self) -> None:
        self._items: dict[int, tuple[K, V]] = {}

    def __getitem__(self, key: K) -> V:
        item = self._items.get(id(key))
        if item is None:
            raise KeyError(key)
        return item[1]

    def __setitem__(self, key: K, value: V) -> None:
        self._items[id(key)] = (key, value)

    def __delitem__(self, key: K) -> None:
        if id(key) not in self._items:
            raise KeyError(key)
        del self._items[id(key)]

    def __contains__(self, key: object) -> bool:
        return id(key) in self._items

    def __iter__(self) -> Iterator[K]:
        return (key for key, _ in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"IdentityMap({len(self)} entries)"
