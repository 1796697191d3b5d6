"""DuplicateIndex: is a text a copy of one seen before? Exact copies by a hash of the words,
near copies by MinHash over word shingles with banded LSH (minhash.py), in a store
(store.py: memory; redis_store.py: shared by the processes of a crawl).

Texts under ``min_words`` words are not judged: short texts (captions, error pages, stubs)
share many shingles by chance and say little about a story.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import minhash
from .store import DuplicateStore, MemoryDuplicateStore

#: Similarity (estimated Jaccard of the 5-word shingles) from which two texts are copies;
#: measured on copies of real pages and the distinct dev pages (docs/duplicates.md).
DEFAULT_THRESHOLD = 0.4
#: Texts under this many words are not judged (measured with the threshold).
DEFAULT_MIN_WORDS = 50


@dataclass(frozen=True)
class Judgement:
    """What DuplicateIndex.judge found.

    ``first``: the key of the earlier text this one repeats (None: not a copy, or not judged);
    ``similarity``: to that text (1.0 for an exact copy), or to the closest candidate;
    ``reason``: "exact", "near", "new", "same_key" (the earlier copy has this text's own key:
    the same page seen again), "short" (under min_words, not judged) or "unavailable" (the
    store did not answer, not judged).
    """

    first: str | None
    similarity: float
    reason: str

    @property
    def judged(self) -> bool:
        return self.reason not in ("short", "unavailable")

    @property
    def is_copy(self) -> bool:
        return self.first is not None


class DuplicateIndex:
    """Remembers texts by key (a URL) and tells, for each new one, the key of the earlier copy.

    ::

        index = DuplicateIndex()
        index.add(story, "https://a.example/story")               # None: the first
        index.add(story_print, "https://a.example/print/story")   # "https://a.example/story"

    ``threshold``: similarity (0..1) from which two texts are copies (1.0: exact copies only, the
    same words: no near candidate is looked for); ``min_words``: shorter texts are not judged;
    ``store``: a MemoryDuplicateStore (default, ``max_items`` remembered) or a RedisDuplicateStore
    shared by several processes.
    """

    def __init__(
        self,
        threshold: float = DEFAULT_THRESHOLD,
        min_words: int = DEFAULT_MIN_WORDS,
        store: DuplicateStore | None = None,
        max_items: int | None = None,
    ) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], not {threshold!r}")
        if min_words < 0:
            raise ValueError("min_words must not be negative")
        self.threshold = float(threshold)
        self.min_words = int(min_words)
        if store is None:
            store = MemoryDuplicateStore() if max_items is None else MemoryDuplicateStore(max_items)
        self.store = store
        self.bands, self.rows = minhash.lsh_bands(self.threshold)

    def judge(self, text: str, key: str) -> Judgement:
        """Judge `text` (remembered under `key` unless it is a copy or not judged)."""
        tokens = minhash.words(text or "")
        if len(tokens) < max(self.min_words, 1):
            return Judgement(None, 0.0, "short")
        sig = minhash.signature(minhash.shingle_hashes(tokens))
        # Exact copies only at 1.0: an estimate of 1.0 may come of texts a word apart.
        bands = minhash.band_keys(sig, self.bands, self.rows) if self.threshold < 1.0 else []
        match = self.store.find_or_add(minhash.text_hash(tokens), minhash.stored(sig), bands, key, self.threshold)
        if match is None:
            return Judgement(None, 0.0, "unavailable")
        if match.first is None:
            return Judgement(None, match.similarity, "new")
        if match.first == key:
            return Judgement(None, match.similarity, "same_key")
        return Judgement(match.first, match.similarity, "exact" if match.exact else "near")

    def add(self, text: str, key: str) -> str | None:
        """The key of the earlier copy of `text`, or None (then `text` is remembered)."""
        return self.judge(text, key).first

    def close(self) -> None:
        self.store.close()
