# cython: boundscheck=False, wraparound=False, initializedcheck=False, annotation_typing=False
# (Its own line, not the first two, which Python reads for the file's own encoding:)
# cython: c_string_encoding=ascii
"""An element's class-name cues (cues.unit_cues, cues.class_cues), cached across pages.

One source (Cython's pure-Python mode; the C types are in _cues.pxd, which the compiled walk,
_walk.pyx, cimports to call class_cues at C level). A page from a site not seen before brings
about 150 new class names, so the uncached path counts. Compiled, a printable-ASCII name (nearly
all of them) is cut into its runs of letters a-z and matched against one trie of the cue words
in one scan, with no regex and no string made but its tokens; the caches are read and filled
without a Python method call. Run as Python, and compiled for any other name, the regexes of
cue_words.py do it (cue_words.key_bits). Both give the same cues over the same caches.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from .cue_words import (
    ANY_CUE_WORD_RE,
    COMMENT_WORDS,
    CUE_CACHE,
    CUE_WORDS,
    KEY_CACHE,
    TAXONOMY_CLASS_RE,
    TAXONOMY_PREFIXES,
    TOKEN_SPLIT_RE,
    UNIT_CACHE,
    CueWords,
    is_comment_section_name,
    key_bits,
)
from .elements import FLAG

try:
    import cython
except ModuleNotFoundError:  # run as Python, without Cython (core/_cython.py)
    from .. import _cython as cython  # type: ignore[no-redef]

if TYPE_CHECKING:
    from ..caches import BoundedCache
    from .cue_words import Cue
    from .page import Tokens

NO_CUE: Cue = (0, (), False)
FLAG_COMMENT = FLAG["comment"]
MAX_UNITS = 16  # an element's names looked at (its class names, then its id)
MAX_FAST_NAME = 200  # longer names take the Python path
# (The compiled path spells these two patterns out.)
assert TAXONOMY_CLASS_RE.pattern.endswith(r"|post-\d+$")
assert TOKEN_SPLIT_RE.pattern == r"[^a-z]+"
assert {prefix[0] for prefix in TAXONOMY_PREFIXES} <= set("tcp")  # _taxonomy's first letters


def class_cues(idv: str | None, cls: str | None) -> Cue:
    """Cues of an element's id and class names combined; cached per (id, class) pair."""
    key = (idv, cls)
    young = CUE_CACHE.young
    cue = young.get(key)
    if cue is None:
        cue = _from_old(CUE_CACHE, key)
    if cue is not None:
        return cue
    units = cls.split() if cls else []
    if idv:
        units.append(idv)
    bits = 0
    comment = False
    tokens: list[str] = []
    known = UNIT_CACHE.young
    unit_cue = NO_CUE
    for unit in units[:MAX_UNITS]:
        unit_cue = known.get(unit) or unit_cues(unit)
        bits |= unit_cue[0]
        tokens.extend(unit_cue[1])
        comment = comment or unit_cue[2]
    # One name (the common case): its cue is the element's, no new tuple to keep.
    cue = unit_cue if len(units) == 1 else (bits, tuple(tokens), comment)
    _cache_put(CUE_CACHE, key, cue, (len(idv) if idv else 0) + (len(cls) if cls else 0) + _chars(cue[1]))
    return cue


def unit_cues(unit: str) -> Cue:
    """(flag bits, tokens, is-comment-section) of one class name or id; cached across pages."""
    young = UNIT_CACHE.young
    cue = young.get(unit)
    if cue is None:
        cue = _from_old(UNIT_CACHE, unit)
        if cue is None:
            cue = _ascii_unit_cues(unit) if cython.compiled else None
            if cue is None:
                cue = _unit_cues(unit)
            _cache_put(UNIT_CACHE, unit, cue, len(unit) + _chars(cue[1]))
    return cue


def _unit_cues(unit: str) -> Cue:
    """The cues of a name, with the regexes of cue_words.py."""
    if TAXONOMY_CLASS_RE.match(unit):
        # The post's own tags and categories ("tag-creditshelf", "category-comments")
        # are words of the site's authors, not of its template.
        return NO_CUE
    text = unit.lower()
    parts = TOKEN_SPLIT_RE.split(text)  # may hold empty strings
    bits = 0
    # One scan of the whole name first: most names hold no cue word at all.
    if ANY_CUE_WORD_RE.search("".join(parts)) is not None:
        parts = [t for t in parts if t]
        known = KEY_CACHE.young
        for key in parts + [a + b for a, b in pairwise(parts)]:
            bits_of_key = known.get(key)
            bits |= bits_of_key if bits_of_key is not None else key_bits(key)
    comment = any(is_comment_section_name(name) for name in text.split())
    if comment:
        bits |= FLAG_COMMENT
    return (bits, tuple([t for t in parts if 1 < len(t) < 25]), comment)


def _ascii_unit_cues(unit: str) -> Cue | None:
    """The cues of a name of printable ASCII (no spaces), in one scan of the cue-word trie; None
    for any other name."""
    n = len(unit)
    if n == 0 or n > MAX_FAST_NAME:
        return None
    for ch in unit:
        if ch < "!" or ch > "~":  # spaces, control and non-ASCII characters: the regexes
            return None
    text = unit.lower()
    low = text  # compiled: its characters, as C chars (an ASCII str holds them as such)
    if _taxonomy(low, n):
        return NO_CUE
    # Which words occur in the name's letters at all? Most names hold none.
    found = _categories(low, 0, n, True)
    # The runs of a-z (TOKEN_SPLIT_RE.split, without the empty strings): the keys are each run
    # and each two adjacent runs joined ("read-more" -> "readmore")
    bits = 0
    tokens = []
    previous = -1  # where the previous run started
    i = 0
    while i < n:
        if not _is_letter(ord(low[i])):
            i += 1
            continue
        start = i
        while i < n and _is_letter(ord(low[i])):
            i += 1
        if found & ANY_CATEGORY:
            bits |= _key_bits(low, start, i)
            if previous >= 0:
                bits |= _key_bits(low, previous, i)
        if 1 < i - start < 25:
            tokens.append(text[start:i])
        previous = start
    # (a name without spaces: it is a comment section's when it is one of their names, which
    # all hold a COMMENT_WORDS word)
    comment = (found & A_COMMENT_WORD) != 0 and is_comment_section_name(text)
    if comment:
        bits |= FLAG_COMMENT
    return (bits, tuple(tokens), comment)


def _taxonomy(low: str, n: int) -> bool:
    """TAXONOMY_CLASS_RE.match on a lower-cased name of printable ASCII."""
    first = ord(low[0])
    if first != ord("t") and first != ord("c") and first != ord("p"):  # most names: no prefix
        return False
    for prefix in TAXONOMY_PREFIXES:
        if _starts_with(low, n, prefix):
            return True
    if n > 5 and _starts_with(low, n, "post-"):
        for k in range(5, n):
            if not (ord("0") <= ord(low[k]) <= ord("9")):
                return False
        return True
    return False


def _starts_with(low: str, n: int, prefix: str) -> bool:
    """low[:n].startswith(prefix)."""
    m = len(prefix)
    if m > n:
        return False
    for k in range(m):
        if ord(low[k]) != ord(prefix[k]):
            return False
    return True


def _is_letter(c: int) -> bool:
    """Whether the character code c is one of a-z."""
    return ord("a") <= c <= ord("z")


# A cue category matches a key (a run of letters a-z, or two adjacent ones joined) when one of its
# `inside` words occurs in it, or when the key is one of its `whole` words. Both kinds sit in one
# trie of the words: a key's categories come from one scan of it, with no regex and no string made.
def _cue_trie() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(next node by letter, categories of `inside` words ending here, of `whole` words ending here).

    A word with anything but the letters a-z is refused (it could never occur in a key), so a
    vocabulary this cannot hold makes the module fail to load rather than give other cues.
    """
    nexts, found, whole_found = [[0] * 26], [0], [0]
    # the cue categories in order, then the comment words (A_COMMENT_WORD)
    vocabularies = [*CUE_WORDS.values(), CueWords(inside=COMMENT_WORDS)]
    for category, words in enumerate(vocabularies):
        for word, whole in [(w, False) for w in words.inside] + [(w, True) for w in words.whole]:
            if not (word.isascii() and word.isalpha() and word.islower()):
                raise ValueError(f"cue word not made of the letters a-z: {word!r}")
            node = 0
            for ch in word:
                k = ord(ch) - 97
                if not nexts[node][k]:
                    nexts.append([0] * 26)
                    found.append(0)
                    whole_found.append(0)
                    nexts[node][k] = len(nexts) - 1
                node = nexts[node][k]
            if whole:
                whole_found[node] |= 1 << category
            else:
                found[node] |= 1 << category
    return np.asarray(nexts, np.intc), np.asarray(found, np.intc), np.asarray(whole_found, np.intc)


TRIE_NEXT, TRIE_FOUND, TRIE_WHOLE = _cue_trie()
CATEGORY_BITS = np.array([FLAG[name] for name in CUE_WORDS], np.longlong)  # category -> flag bit
N_CATEGORIES = len(CATEGORY_BITS)
assert N_CATEGORIES < 30
ANY_CATEGORY = (1 << N_CATEGORIES) - 1  # the categories' bits of a _categories mask
A_COMMENT_WORD = 1 << N_CATEGORIES  # its bit for a COMMENT_WORDS word


def _categories(low: str, start: int, end: int, any_word: bool) -> int:
    """Bit i set when category i of the trie matches the key made of the letters a-z of
    low[start:end] (it starts and ends with one): the other characters are left out, as in a
    joined pair of runs.

    With `any_word`, when any word of category i occurs in the key, `whole` or not: a superset
    for a whole name, whose keys are all parts of its letters.
    """
    mask = 0
    for i in range(start, end):
        if not _is_letter(ord(low[i])):
            continue
        node = 0
        for j in range(i, end):
            k = ord(low[j]) - ord("a")
            if k < 0 or k >= 26:
                continue
            node = TRIE_NEXT[node, k]
            if node == 0:
                break
            mask |= TRIE_FOUND[node]
            if any_word or (i == start and j == end - 1):
                mask |= TRIE_WHOLE[node]
    return mask


def _key_bits(low: str, start: int, end: int) -> int:
    """cue_words.key_bits of the key made of the letters of low[start:end]."""
    mask = _categories(low, start, end, False)
    bits = 0
    for category in range(N_CATEGORIES):
        if mask & (1 << category):
            bits |= CATEGORY_BITS[category]
    return bits


# BoundedCache's get (after a miss in the young generation) and put, without a Python method
# call when compiled.


def _from_old(cache: BoundedCache[Any, Cue], key: Any) -> Cue | None:
    """BoundedCache.get of a key not in the young generation: the old one's entry, which moves
    back into the young one."""
    old = cache.old
    value = old.get(key)
    if value is not None:
        _cache_put(cache, key, value, _text_size(key) + _text_size(value))
    return value


def _cache_put(cache: BoundedCache[Any, Cue], key: Any, value: Cue, chars: int) -> int:
    """BoundedCache.put; `chars`: the entry's characters as put counts them (caches.text_size of
    key and value), worked out by the caller from what it knows."""
    state = cache._state  # [limit, max_chars, characters of the young generation]
    max_chars = state[1]
    if chars > max_chars:
        return 0
    young = cache.young
    young_chars = state[2]
    if len(young) >= state[0] or young_chars + chars > max_chars:
        cache.old = young
        young = cache.young = {}
        young_chars = 0
    young[key] = value
    state[2] = young_chars + chars
    return 0


def _text_size(value: object) -> int:
    """caches.text_size: characters of the strings in a str or in tuples of them."""
    if isinstance(value, str):
        return len(value)
    total = 0
    if isinstance(value, tuple):
        for item in value:
            total += _text_size(item)
    return total


def _chars(strings: Tokens) -> int:
    """Characters of a tuple of str."""
    total = 0
    for item in strings:
        total += len(item)
    return total
