"""The one cache type: a bounded, thread-safe map, the least recently written dropped first.

The store keeps the head of each stream it appended to in one; the service keeps states,
secrets, token hashes, views and checked logs in others. Only ever a cache: what it holds
can always be read again from the store."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """Values worth keeping between requests, at most `size` of them."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, key: K) -> bool:
        with self._lock:
            return key in self._values

    def __len__(self) -> int:
        with self._lock:
            return len(self._values)

    def items(self) -> list[tuple[K, V]]:
        """What is kept now, oldest first."""
        with self._lock:
            return list(self._values.items())

    def get(self, key: K) -> V | None:
        with self._lock:
            return self._values.get(key)

    def pop(self, key: K) -> None:
        with self._lock:
            self._values.pop(key, None)

    def put(self, key: K, value: V, replaces: Callable[[V], bool] = lambda _: True) -> None:
        """Keep `value`, unless the one kept already is better (`replaces` says no)."""
        with self._lock:
            known = self._values.get(key)
            if known is None or replaces(known):
                self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self._size:
                self._values.popitem(last=False)

    def get_or_load(self, key: K, load: Callable[[], V]) -> V:
        """The value kept, or `load()`'s, kept from now on (for values that never change)."""
        known = self.get(key)
        if known is not None:
            return known
        value = load()
        self.put(key, value)
        return value
