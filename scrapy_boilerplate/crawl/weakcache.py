"""One object per crawler or per response, shared by the components that need it.

OverviewMiddleware and MainContentPipeline share a crawl's worker pool, its
item-to-response records and each response's walked page. Each is built by
the first component that asks and goes with its key (a weak reference):
nothing is stored on the crawler or the response themselves.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class WeakCache(Generic[K, V]):
    """``cache(key)``: the value built by ``make(key)`` on first use, then the same one."""

    def __init__(self, make: Callable[[K], V]):
        self._make = make
        self._values: weakref.WeakKeyDictionary[K, V] = weakref.WeakKeyDictionary()

    def __call__(self, key: K) -> V:
        value = self._values.get(key)
        if value is None:
            value = self._values[key] = self._make(key)
        return value

    def get(self, key: K) -> V | None:
        """The value already built for `key`, or None."""
        return self._values.get(key)

    def __len__(self) -> int:
        return len(self._values)
