# cython: language_level=3
"""Compiled twin of cues.py: an element's class-name cues (cues.unit_cues, cues.class_cues).

The uncached paths of one class name's and of one element's cues, over the same caches
(cues.UNIT_CACHE, cues.CUE_CACHE) and word lists; they must give what cues.unit_cues and
cues.class_cues give (tests/twins/test_compiled_walk.py compares them). The compiled walk
(_walk.pyx) calls class_cues at C level (declared in _cues.pxd).
"""

cimport cython
from libc.string cimport memcpy, strlen, strncmp, strstr
from cpython.unicode cimport PyUnicode_AsUTF8, PyUnicode_DecodeASCII

import numpy as np

from . import cues, elements

# Class-name cues: cues.unit_cues is the reference. A page from a site not seen before
# brings about 150 new class names, so the uncached path counts.
cdef object UNIT_CACHE = cues.UNIT_CACHE
cdef object CUE_CACHE = cues.CUE_CACHE
cdef object is_comment_section_name = cues.is_comment_section_name
cdef long long FLAG_COMMENT = elements.FLAG["comment"]
cdef tuple NO_CUE = (0, (), False)
cdef Py_ssize_t MAX_FAST_NAME = 200
# cues.COMMENT_WORDS and cues.TAXONOMY_PREFIXES, as C strings (checked below)
cdef const char* COMMENT_WORDS[6]
COMMENT_WORDS[:] = [b"omment", b"disqus", b"respond", b"repl", b"discussion", b"talkback"]
cdef const char* TAXONOMY_PREFIXES[5]
TAXONOMY_PREFIXES[:] = [b"tag-", b"category-", b"post_tag-", b"postid-", b"page-id-"]
assert cues.COMMENT_WORDS == ("omment", "disqus", "respond", "repl", "discussion", "talkback")
assert cues.TAXONOMY_PREFIXES == ("tag-", "category-", "post_tag-", "postid-", "page-id-")
assert cues.TAXONOMY_CLASS_RE.pattern.endswith(r"|post-\d+$")
assert cues.TOKEN_SPLIT_RE.pattern == r"[^a-z]+"


cdef object _cache_get(object cache, object key):
    """BoundedCache.get without a Python method call: young, then old (promoted)."""
    value = (<dict>cache.young).get(key)
    if value is None:
        value = (<dict>cache.old).get(key)
        if value is not None:
            _cache_put(cache, key, value, _text_size(key) + _text_size(value))
    return value


cdef int _cache_put(object cache, object key, object value, Py_ssize_t chars) except -1:
    """BoundedCache.put without a Python method call; `chars`: the entry's characters as put
    counts them (caches.text_size of key and value), worked out by the caller from what it knows."""
    cdef list state = <list>cache._state  # [limit, max_chars, characters of the young generation]
    cdef Py_ssize_t max_chars = state[1]
    if chars > max_chars:
        return 0
    young = <dict>cache.young
    cdef Py_ssize_t young_chars = state[2]
    if len(young) >= <Py_ssize_t>state[0] or young_chars + chars > max_chars:
        cache.old = young
        young = cache.young = {}
        young_chars = 0
    young[key] = value
    state[2] = young_chars + chars
    return 0


cdef Py_ssize_t _text_size(object value) except -1:
    """caches.text_size: characters of the strings in a str or in tuples of them."""
    cdef Py_ssize_t total = 0
    if isinstance(value, str):
        return len(<str>value)
    if isinstance(value, tuple):
        for item in <tuple>value:
            total += _text_size(item)
    return total


cdef Py_ssize_t _chars(list strings):
    """Characters of a list of str."""
    cdef Py_ssize_t total = 0
    for item in strings:
        total += len(<str>item)
    return total


# A cue category matches a run of lower-case letters (a name's token, or two adjacent ones
# joined) when one of its `inside` words occurs in it, or when the run is one of its `whole`
# words. Both kinds sit in one trie of the words: a run's categories come from one scan of
# it, with no regex and no string made.
cdef list CATEGORY_BITS = [elements.FLAG[name] for name in cues.CUE_WORDS]


def _cue_trie():
    """(next node by letter, categories of `inside` words ending here, of `whole` words ending here).

    A word with anything but the letters a-z is refused (it could never occur in a run), so
    a vocabulary this cannot hold makes the module fail to load (the Python walk is used
    then) rather than give other cues.
    """
    nexts, found, whole_found = [[0] * 26], [0], [0]
    for category, words in enumerate(cues.CUE_WORDS.values()):
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
    return (np.asarray(nexts, np.int32), np.asarray(found, np.int32),
            np.asarray(whole_found, np.int32))


cdef int[:, ::1] TRIE_NEXT
cdef int[::1] TRIE_FOUND, TRIE_WHOLE
TRIE_NEXT, TRIE_FOUND, TRIE_WHOLE = _cue_trie()
cdef Py_ssize_t N_CATEGORIES = len(CATEGORY_BITS)
assert N_CATEGORIES < 31
cdef long long CATEGORY_BIT_VALUES[31]
for _i, _bit in enumerate(CATEGORY_BITS):
    CATEGORY_BIT_VALUES[_i] = _bit


@cython.boundscheck(False)
@cython.wraparound(False)
cdef int _categories(const char* s, Py_ssize_t n, bint any_word) noexcept:
    """Bit i set when category i matches the run s of n lower-case letters (a-z).

    With `any_word`, when any word of category i occurs in s, `whole` or not: a superset
    for a whole name, whose runs (and pairs of adjacent runs) are all parts of s.
    """
    cdef int mask = 0, node, k
    cdef Py_ssize_t i, j
    for i in range(n):
        node = 0
        for j in range(i, n):
            k = s[j] - 97
            if k < 0 or k >= 26:
                break
            node = TRIE_NEXT[node, k]
            if node == 0:
                break
            mask |= TRIE_FOUND[node]
            if any_word or (i == 0 and j == n - 1):
                mask |= TRIE_WHOLE[node]
    return mask


cdef long long _run_bits(const char* s, Py_ssize_t n) noexcept:
    """cues.key_bits of the run s of n lower-case letters."""
    cdef int mask = _categories(s, n, False)
    cdef long long bits = 0
    cdef Py_ssize_t category
    for category in range(N_CATEGORIES):
        if mask & (1 << category):
            bits |= CATEGORY_BIT_VALUES[category]
    return bits


cdef bint _taxonomy(const char* low, Py_ssize_t n) noexcept:
    """TAXONOMY_CLASS_RE.match on a lower-cased printable-ASCII name."""
    cdef int i
    cdef Py_ssize_t k
    for i in range(5):
        if strncmp(low, TAXONOMY_PREFIXES[i], strlen(TAXONOMY_PREFIXES[i])) == 0:
            return True
    if n > 5 and strncmp(low, b"post-", 5) == 0:
        for k in range(5, n):
            if not (c'0' <= low[k] <= c'9'):
                return False
        return True
    return False


cpdef tuple unit_cues(str unit):
    """cues.unit_cues, with its common steps in C for printable-ASCII names (the others go there)."""
    cue = _cache_get(UNIT_CACHE, unit)
    if cue is not None:
        return cue
    cdef Py_ssize_t n = len(unit), i, start
    if n == 0 or n > MAX_FAST_NAME or not unit.isascii():
        return cues.unit_cues(unit)
    cdef const char* raw = PyUnicode_AsUTF8(unit)
    cdef char low[201]
    cdef char c
    for i in range(n):
        c = raw[i]
        if c < 33 or c > 126:   # spaces and control characters: the Python path (split, \s, $)
            return cues.unit_cues(unit)
        low[i] = c + 32 if c'A' <= c <= c'Z' else c
    low[n] = 0
    if _taxonomy(low, n):
        _cache_put(UNIT_CACHE, unit, NO_CUE, n)
        return NO_CUE
    # TOKEN_SPLIT_RE.split, without the empty strings: the runs of a-z (and all of them joined)
    cdef Py_ssize_t run_start[100]
    cdef Py_ssize_t run_length[100]
    cdef Py_ssize_t n_runs = 0, k
    cdef char joined[201]
    cdef char pair[201]
    cdef Py_ssize_t n_joined = 0
    i = 0
    while i < n:
        if c'a' <= low[i] <= c'z':
            start = i
            while i < n and c'a' <= low[i] <= c'z':
                joined[n_joined] = low[i]
                n_joined += 1
                i += 1
            run_start[n_runs] = start
            run_length[n_runs] = i - start
            n_runs += 1
        else:
            i += 1
    cdef long long bits = 0
    # Does any cue word occur in the name at all? Most names hold none.
    if _categories(joined, n_joined, True):
        for k in range(n_runs):
            bits |= _run_bits(low + run_start[k], run_length[k])
            if k + 1 < n_runs:   # two adjacent runs joined: "read-more" -> "readmore"
                memcpy(pair, low + run_start[k], run_length[k])
                memcpy(pair + run_length[k], low + run_start[k + 1], run_length[k + 1])
                bits |= _run_bits(pair, run_length[k] + run_length[k + 1])
    comment = False
    for i in range(6):
        if strstr(low, COMMENT_WORDS[i]) is not NULL:
            # (a name without spaces: it is a comment section's when it is one of their names)
            comment = is_comment_section_name(PyUnicode_DecodeASCII(low, n, NULL))
            break
    if comment:
        bits |= FLAG_COMMENT
    tokens = [PyUnicode_DecodeASCII(low + run_start[k], run_length[k], NULL)
              for k in range(n_runs) if 1 < run_length[k] < 25]
    cue = (bits, tuple(tokens), comment)
    _cache_put(UNIT_CACHE, unit, cue, n + _chars(tokens))
    return cue


cdef Py_ssize_t MAX_UNITS = 16   # as cues.class_cues


cpdef tuple class_cues(idv, cls):
    """cues.class_cues in C, the walk's one lookup of an element's cues (cached per pair)."""
    cdef tuple key = (idv, cls)
    cue = _cache_get(CUE_CACHE, key)
    if cue is not None:
        return cue
    cdef list units = (<str>cls).split() if cls else []
    if idv:
        units.append(idv)
    cdef long long bits = 0
    cdef bint comment = False
    cdef tuple unit_cue
    cdef list tokens = []
    cdef dict known = <dict>UNIT_CACHE.young
    for unit in units[:MAX_UNITS]:
        unit_cue = known.get(unit)
        if unit_cue is None:
            unit_cue = unit_cues(unit)
        bits |= <long long>unit_cue[0]
        tokens.extend(<tuple>unit_cue[1])
        comment = comment or unit_cue[2]
    # One name (the common case): its cue is the element's, no new tuple to keep.
    cue = unit_cue if len(units) == 1 else (bits, tuple(tokens), comment)
    _cache_put(CUE_CACHE, key, cue, (len(<str>idv) if idv else 0) + (len(<str>cls) if cls else 0) + _chars(tokens))
    return cue


