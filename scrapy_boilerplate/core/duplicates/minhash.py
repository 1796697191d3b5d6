"""Word shingles, MinHash signatures and LSH band keys of a text, with numpy.

A text is normalised as the project's metrics do (NFC, soft hyphens removed, then case-folded),
cut into ``\\w+`` words (a Chinese or Japanese character is one), and each run of
``SHINGLE_WORDS`` words is a shingle. A signature is the minimum over the shingles of
``NUM_PERM`` hash functions (multiply-add-shift on the shingle's 32-bit hash); the share of equal
positions of two signatures estimates the Jaccard similarity of their shingle sets. The bands of a
signature (``bands`` runs of ``rows`` positions) are hashed into keys: two texts whose signatures
share a band are candidates, checked on their signatures.

Every constant comes from a fixed seed and every hash is blake2b or integer arithmetic, so two
processes (or two machines sharing a Redis) compute the same signature of the same text.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

import numpy as np

#: Words per shingle.
SHINGLE_WORDS = 5
#: Hash functions per signature (positions).
NUM_PERM = 128
#: Shingles hashed at once (bounds the temporary (chunk, NUM_PERM) array to 4 MiB).
_CHUNK = 4096
_SEED = 20261126

# Chinese and Japanese are written without spaces: each of their characters is a word (so a
# shingle is 5 characters); everything else is a run of \w characters.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = re.compile(f"[{_CJK}]|[^\\W{_CJK}]+")
_rng = np.random.default_rng(_SEED)
# Multiply-add-shift hashing of 32-bit keys: (a * x + b) mod 2**64, top 32 bits; a odd.
_A = _rng.integers(1, 2**63, NUM_PERM, dtype=np.uint64) | np.uint64(1)
_B = _rng.integers(0, 2**63, NUM_PERM, dtype=np.uint64)
# Word positions in a shingle are weighted by odd constants (a position-aware sum).
_POSITION = _rng.integers(1, 2**63, SHINGLE_WORDS, dtype=np.uint64) | np.uint64(1)
# Band keys: the rows of a band weighted by odd constants, plus the band's own number.
_ROW = _rng.integers(1, 2**63, NUM_PERM, dtype=np.uint64) | np.uint64(1)
_BAND = _rng.integers(1, 2**63, NUM_PERM, dtype=np.uint64)
_SHIFT = np.uint64(32)


def words(text: str) -> list[str]:
    """The text's words, as the project's metrics see them (NFC, no soft hyphens, case-folded,
    ``\\w+``), except that each Chinese or Japanese character is a word of its own."""
    text = unicodedata.normalize("NFC", text).replace("\u00ad", "").casefold()
    return _WORD.findall(text)


def text_hash(tokens: list[str]) -> str:
    """A hash of the words (16 hex digits): equal for texts that differ only in case, spacing
    and punctuation."""
    return hashlib.blake2b(" ".join(tokens).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def shingle_hashes(tokens: list[str]) -> np.ndarray:
    """The distinct 32-bit hashes (uint64 array) of the text's word shingles; a text shorter
    than a shingle is one shingle."""
    vocabulary: dict[str, int] = {}
    ids = np.fromiter((vocabulary.setdefault(w, len(vocabulary)) for w in tokens), np.int64, len(tokens))
    word_hash = np.fromiter(
        (
            int.from_bytes(hashlib.blake2b(w.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")
            for w in vocabulary
        ),
        np.uint64,
        len(vocabulary),
    )[ids]
    k = min(SHINGLE_WORDS, len(word_hash))
    if k == 0:
        return np.zeros(0, np.uint64)
    count = len(word_hash) - k + 1
    combined = np.zeros(count, np.uint64)
    for j in range(k):
        combined += word_hash[j : j + count] * _POSITION[j]
    return np.unique(combined >> _SHIFT)


def signature(shingles: np.ndarray) -> np.ndarray:
    """The MinHash signature (NUM_PERM uint32) of a set of shingle hashes (not empty)."""
    result = np.full(NUM_PERM, np.iinfo(np.uint64).max, np.uint64)
    for start in range(0, len(shingles), _CHUNK):
        chunk = shingles[start : start + _CHUNK, None]
        np.minimum(result, ((chunk * _A + _B) >> _SHIFT).min(axis=0), out=result)
    return result.astype(np.uint32)


def stored(sig: np.ndarray) -> np.ndarray:
    """The signature as the stores keep it: the low 16 bits of each position (half the memory;
    two different minima agree there by chance once in 65,536 positions)."""
    return sig.astype(np.uint16)


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    """The Jaccard similarity two signatures estimate."""
    return float(np.count_nonzero(a == b)) / len(a)


def band_keys(sig: np.ndarray, bands: int, rows: int) -> list[int]:
    """One 64-bit key per band of the signature (a band's number is part of its key)."""
    cells = sig[: bands * rows].astype(np.uint64).reshape(bands, rows)
    keys = (cells * _ROW[:rows]).sum(axis=1, dtype=np.uint64) + _BAND[:bands]
    return [int(k) for k in keys]


@lru_cache(maxsize=64)
def lsh_bands(threshold: float, num_perm: int = NUM_PERM) -> tuple[int, int]:
    """(bands, rows) for a threshold: the split of the signature whose candidate curve
    1 - (1 - s**rows)**bands misses least on both sides of the threshold: the area of false
    candidates below it plus 4 times the area of missed pairs above it (datasketch weighs
    them equally, which leaves a pair at the threshold a candidate 40 % of the time at 0.6;
    here 85 %: false candidates only cost a check of their signatures)."""
    s = np.linspace(0.0, 1.0, 1001)
    best: tuple[float, int, int] | None = None
    for bands in range(1, num_perm + 1):
        for rows in range(1, num_perm // bands + 1):
            p = 1.0 - (1.0 - s**rows) ** bands
            false = float(np.where(s < threshold, p, 0.0).mean())
            missed = float(np.where(s >= threshold, 1.0 - p, 0.0).mean())
            cost = 0.2 * false + 0.8 * missed
            if best is None or cost < best[0]:
                best = (cost, bands, rows)
    assert best is not None
    return best[1], best[2]
