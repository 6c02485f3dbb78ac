"""A bounded, thread-safe map of per-match values, the least recently used dropped first."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")


class Kept(Generic[V]):
    """Values worth keeping between requests (a match's state, secret, token hashes); only a
    cache: what it holds can always be read again from the store."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._values: OrderedDict[str, V] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return key in self._values

    def get(self, key: str) -> V | None:
        with self._lock:
            return self._values.get(key)

    def put(self, key: str, value: V, replaces: Callable[[V], bool] = lambda _: True) -> None:
        """Keep `value`, unless the one kept already is better (`replaces` says no)."""
        with self._lock:
            known = self._values.get(key)
            if known is None or replaces(known):
                self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self._size:
                self._values.popitem(last=False)

    def get_or_load(self, key: str, load: Callable[[], V]) -> V:
        """The value kept, or `load()`'s, kept from now on (for values that never change)."""
        known = self.get(key)
        if known is not None:
            return known
        value = load()
        self.put(key, value)
        return value
