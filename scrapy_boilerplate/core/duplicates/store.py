"""Where a crawl remembers the texts it has seen: the base of the stores, and the memory store.

A store answers one question atomically: is this text (its hash, MinHash signature and band
keys) a copy of one remembered, and if not, remember it. Copies are not remembered: the first
item of a story stays the one every later copy is matched against. A text remembered under the
item's own key (its URL) is preferred to any other copy: a page crawled again is no copy.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

#: Items a MemoryDuplicateStore remembers by default (docs/duplicates.md: memory per item).
DEFAULT_MAX_ITEMS = 50_000
#: Texts an LSH bucket holds, the latest (as the Redis store caps a band): texts alike enough
#: to share bands yet no copies of each other are few, and an uncapped bucket of texts sharing
#: their common words grows with the crawl, and each item's checks with it.
BUCKET_CAP = 64


@dataclass(frozen=True)
class Match:
    """A store's answer: the key of the remembered copy (None: none, the text is remembered
    now), the similarity to it (1.0 for an exact copy; to the closest candidate, or 0.0,
    otherwise) and whether the words were identical."""

    first: str | None
    similarity: float
    exact: bool = False


def needed(threshold: float, positions: int) -> int:
    """Equal signature positions from which two texts are copies (the same rule in Redis)."""
    return max(1, math.ceil(threshold * positions - 1e-9))


class DuplicateStore:
    """What DuplicateIndex needs of a store."""

    def find_or_add(self, digest: str, sig: np.ndarray, bands: list[int], key: str, threshold: float) -> Match | None:
        """The remembered copy of the text, or remember it; None when the store cannot answer.
        `sig`: the signature as stored (minhash.stored), `bands`: its LSH band keys."""
        raise NotImplementedError

    def close(self) -> None:
        """Release connections, if any."""


class MemoryDuplicateStore(DuplicateStore):
    """The texts seen by this process: at most `max_items`, the oldest forgotten first.

    Each item holds its key, its signature (bytes) and its band keys; each band key leads to
    the latest items that have it (a str when one, a list when more; at most BUCKET_CAP).
    Thread-safe.
    """

    def __init__(self, max_items: int = DEFAULT_MAX_ITEMS) -> None:
        if max_items < 1:
            raise ValueError("max_items must be positive")
        self.max_items = int(max_items)
        # digest -> (key, signature bytes, band keys), oldest first.
        self._items: OrderedDict[str, tuple[str, bytes, tuple[int, ...]]] = OrderedDict()
        self._buckets: dict[int, str | list[str]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def find_or_add(self, digest: str, sig: np.ndarray, bands: list[int], key: str, threshold: float) -> Match:
        with self._lock:
            known = self._items.get(digest)
            if known is not None:
                return Match(known[0], 1.0, exact=True)
            best, best_equal = None, -1
            candidates = self._candidates(bands)
            if candidates:
                # All candidates' signatures compared at once (up to BUCKET_CAP per band).
                rows = np.frombuffer(b"".join(self._items[c][1] for c in candidates), sig.dtype)
                equal = np.count_nonzero(rows.reshape(len(candidates), len(sig)) == sig, axis=1)
                i = int(np.argmax(equal))  # the first (oldest) of the best
                best, best_equal = self._items[candidates[i]][0], int(equal[i])
                # A page crawled again is no copy, even when another page is closer.
                for j in np.flatnonzero(equal >= needed(threshold, len(sig))):
                    if self._items[candidates[j]][0] == key:
                        return Match(key, int(equal[j]) / len(sig))
            if best is not None and best_equal >= needed(threshold, len(sig)):
                return Match(best, best_equal / len(sig))
            self._add(digest, sig.tobytes(), tuple(bands), key)
            return Match(None, max(best_equal, 0) / len(sig))

    def _candidates(self, bands: list[int]) -> list[str]:
        """The remembered items sharing a band with the text, oldest first, once each."""
        found: dict[str, None] = {}
        for band in bands:
            held = self._buckets.get(band)
            if isinstance(held, str):
                found[held] = None
            elif held is not None:
                found.update(dict.fromkeys(held))
        return list(found)

    def _add(self, digest: str, sig: bytes, bands: tuple[int, ...], key: str) -> None:
        self._items[digest] = (key, sig, bands)
        for band in bands:
            held = self._buckets.get(band)
            if held is None:
                self._buckets[band] = digest
            elif isinstance(held, str):
                self._buckets[band] = [held, digest]
            else:
                held.append(digest)
                if len(held) > BUCKET_CAP:
                    del held[0]  # its item keeps its other bands
        while len(self._items) > self.max_items:
            self._forget_oldest()

    def _forget_oldest(self) -> None:
        digest, (_, _, bands) = self._items.popitem(last=False)
        for band in bands:
            held = self._buckets.get(band)
            if held == digest:
                del self._buckets[band]
            elif isinstance(held, list) and digest in held:  # not if capped out of it
                held.remove(digest)
                if len(held) == 1:
                    self._buckets[band] = held[0]
