"""The caches kept across pages: bounded in entries and in the characters they hold.

The pages choose what these caches keep (class names, URLs): a bound on entries alone lets each
entry be as long as a page, so that a few hostile pages (100 KB class names, 100 KB hrefs) grow
the process by hundreds of MB. A :class:`BoundedCache` counts the characters of the strings in
its keys and values (``text_size``) as well as its entries, and starts a new generation when
either passes its limit.
"""

from __future__ import annotations

from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


def text_size(value: object) -> int:
    """Characters of the strings in `value`: a str, or tuples of them, nested (others: 0)."""
    if isinstance(value, str):
        return len(value)
    total = 0
    if isinstance(value, tuple):
        for item in value:
            if isinstance(item, str):
                total += len(item)
            elif isinstance(item, tuple):
                total += text_size(item)
    return total


class BoundedCache(Generic[K, V]):
    """A dict-like cache of at most 2 x `limit` entries holding at most 2 x `max_chars`
    characters of strings (in keys and values, ``text_size``; a str holds one to four bytes a
    character), approximately LRU. None is no value: ``get`` gives None for a key it lacks.

    Two generations: new entries go into the young one; when it is full (in entries or in
    characters) it becomes the old one and the previous old one is forgotten. An entry found
    in the old generation moves back into the young one, so names in use ("menu-item",
    "entry-content", a site's menu links) survive while one-off names (hashes, ids) age out.
    Emptying the cache instead would make every later page pay for the class names of the
    whole web again. An entry of more than `max_chars` characters on its own is not kept.

    ``document/_cues.py`` mirrors ``get`` and ``put`` (without a Python method call when compiled).
    """

    __slots__ = ("young", "old", "_state")

    def __init__(self, limit: int, max_chars: int) -> None:
        self.young: dict[K, V] = {}
        self.old: dict[K, V] = {}
        # [limit, max_chars, characters of the young generation]: one list, which the compiled
        # twin reads with one attribute lookup (a miss of a new site's page costs a few).
        self._state = [limit, max_chars, 0]

    @property
    def limit(self) -> int:
        return self._state[0]

    @property
    def max_chars(self) -> int:
        return self._state[1]

    @property
    def young_chars(self) -> int:
        """Characters of the young generation's entries."""
        return self._state[2]

    def get(self, key: K) -> V | None:
        value = self.young.get(key)
        if value is None:
            value = self.old.get(key)
            if value is not None:
                self.put(key, value)
        return value

    def put(self, key: K, value: V) -> None:
        state = self._state
        chars = text_size(key) + text_size(value)
        if chars > state[1]:
            return
        if len(self.young) >= state[0] or state[2] + chars > state[1]:
            self.old = self.young
            self.young = {}
            state[2] = 0
        self.young[key] = value
        state[2] += chars

    def clear(self) -> None:
        self.young.clear()
        self.old.clear()
        self._state[2] = 0

    def __len__(self) -> int:
        return len(self.young) + len(self.old)
