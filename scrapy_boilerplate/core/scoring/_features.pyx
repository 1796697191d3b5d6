# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled twin of features.py: the per-block string statistics (features._text_stats).

The reference is the Python twin, features._text_stats (with _block_text_stats): this module must
give the very same numbers (the shipped model was trained on them). The
character counts are one typed loop over each text instead of a dozen
str.count and re.findall calls; words are cut from t.lower() in a second
loop with re's own character classes (\\w: Py_UNICODE_ISALNUM or "_";
\\d: Py_UNICODE_ISDECIMAL), so they are the same words. The
rare, anchored patterns (cue phrases, end markers, dates) still go through
the caller's compiled regexes.
"""

import numpy as np

from cpython.mem cimport PyMem_Calloc, PyMem_Free
from cpython.ref cimport PyObject
from cpython.unicode cimport (Py_UNICODE_ISALNUM, Py_UNICODE_ISDECIMAL, PyUnicode_DATA,
                              PyUnicode_GET_LENGTH, PyUnicode_KIND, PyUnicode_READ)
from libc.stdint cimport uint64_t

cdef enum:
    N_STATS = 15   # columns, in the order of features._text_stats
    HEAD = 200     # digits and upper case are counted in the first 200 characters


cdef inline bint is_word_char(Py_UCS4 ch):
    # re's \w; ASCII spelled out, as Py_UNICODE_ISALNUM is four function calls
    if ch < 128:
        return (u"a" <= ch <= u"z") or (u"A" <= ch <= u"Z") or (u"0" <= ch <= u"9") or ch == u"_"
    return Py_UNICODE_ISALNUM(ch)


cdef inline bint is_digit(Py_UCS4 ch):
    # re's \d
    if ch < 128:
        return u"0" <= ch <= u"9"
    return Py_UNICODE_ISDECIMAL(ch)


cdef inline bint is_upper(Py_UCS4 ch):
    # features.UPPER_RE: [A-ZÀ-ÖØ-ÞА-Я]
    return ((u"A" <= ch <= u"Z") or (0xC0 <= ch <= 0xD6) or (0xD8 <= ch <= 0xDE)
            or (0x410 <= ch <= 0x42F))


# Words are never made into strings: each word of t.lower() is hashed where it stands,
# counted once per block in a small hash set (ties checked character by character, so
# the counts are exact), and looked up in one table of the page's known words: the
# stopwords, title, description and JSON-LD body words, with a bit for each set.
cdef enum:
    IN_STOP = 1
    IN_TITLE = 2
    IN_DESC = 4
    IN_BODY = 8

cdef struct Slot:
    uint64_t hash
    Py_ssize_t start      # the word: lowered[start:start + length] (seen set), or
    Py_ssize_t length     # `word` (known-word table); length 0 marks an empty slot
    int bits
    PyObject* word        # borrowed: the caller's sets hold the strings


cdef inline uint64_t _hash(int kind, const void* data, Py_ssize_t start, Py_ssize_t end) noexcept:
    cdef uint64_t h = 1469598103934665603ULL   # FNV-1a over code points
    cdef Py_ssize_t i
    for i in range(start, end):
        h = (h ^ <uint64_t>PyUnicode_READ(kind, <void*>data, i)) * 1099511628211ULL
    return h


cdef inline bint _same(int kind_a, const void* a, Py_ssize_t start_a, int kind_b, const void* b,
                       Py_ssize_t start_b, Py_ssize_t length) noexcept:
    cdef Py_ssize_t i
    for i in range(length):
        if PyUnicode_READ(kind_a, <void*>a, start_a + i) != PyUnicode_READ(kind_b, <void*>b, start_b + i):
            return False
    return True


cdef class KnownWords:
    """Open-addressing table: word -> which of the page's word sets hold it."""
    cdef Slot* slots
    cdef Py_ssize_t mask

    def __init__(self, sets):
        cdef Py_ssize_t total = sum(len(words) for words, _bit in sets), size = 16
        while size < 2 * total:
            size *= 2
        self.slots = <Slot*>PyMem_Calloc(size, sizeof(Slot))
        if self.slots is NULL:
            raise MemoryError()
        self.mask = size - 1
        for words, bit in sets:
            for word in words:
                if len(word):
                    self.add(word, bit)

    def __dealloc__(self):
        PyMem_Free(self.slots)

    cdef void add(self, str word, int bit) noexcept:
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(word)
        cdef int kind = PyUnicode_KIND(word)
        cdef void* data = PyUnicode_DATA(word)
        cdef uint64_t h = _hash(kind, data, 0, n)
        cdef Slot* slot = self.find(h, kind, data, 0, n)
        if slot.length == 0:
            slot.hash, slot.length, slot.word = h, n, <PyObject*>word
        slot.bits |= bit

    cdef int bits(self, uint64_t h, int kind, const void* data, Py_ssize_t start, Py_ssize_t n) noexcept:
        return self.find(h, kind, data, start, n).bits   # an empty slot holds no bits

    cdef Slot* find(self, uint64_t h, int kind, const void* data, Py_ssize_t start, Py_ssize_t n) noexcept:
        """The slot of the word data[start:start + n], or the empty slot where it would go."""
        cdef Py_ssize_t i = h & self.mask
        cdef Slot* slot
        while True:
            slot = &self.slots[i]
            if slot.length == 0 or (slot.hash == h and slot.length == n and _same(
                    kind, data, start, PyUnicode_KIND(<object>slot.word), PyUnicode_DATA(<object>slot.word), 0, n)):
                return slot
            i = (i + 1) & self.mask


cdef class SeenWords:
    """The distinct words of one block: a reusable open-addressing set of (hash, place).
    Only the slots a block used are cleared for the next (a long block must not make
    every short one pay for clearing a large table)."""
    cdef Slot* slots
    cdef Py_ssize_t* used
    cdef Py_ssize_t size, mask, n_used

    def __dealloc__(self):
        PyMem_Free(self.slots)
        PyMem_Free(self.used)

    cdef int reset(self, Py_ssize_t max_words) except -1:
        cdef Py_ssize_t size = 16, k
        while size < 2 * max_words:
            size *= 2
        if size > self.size:
            PyMem_Free(self.slots)
            PyMem_Free(self.used)
            self.slots = <Slot*>PyMem_Calloc(size, sizeof(Slot))
            self.used = <Py_ssize_t*>PyMem_Calloc(size, sizeof(Py_ssize_t))
            if self.slots is NULL or self.used is NULL:
                self.size = 0
                raise MemoryError()
            self.size = size
            self.mask = size - 1
        else:
            for k in range(self.n_used):
                self.slots[self.used[k]].length = 0
        self.n_used = 0
        return 0

    cdef bint add(self, uint64_t h, int kind, const void* data, Py_ssize_t start, Py_ssize_t n) noexcept:
        """True when the word is new in this block."""
        cdef Py_ssize_t i = h & self.mask
        cdef Slot* slot
        while True:
            slot = &self.slots[i]
            if slot.length == 0:
                slot.hash, slot.start, slot.length = h, start, n
                self.used[self.n_used] = i
                self.n_used += 1
                return True
            if slot.hash == h and slot.length == n and _same(kind, data, start, kind, data, slot.start, n):
                return False
            i = (i + 1) & self.mask


def _text_stats(list texts, counts, frozenset title_words, frozenset desc_words,
                frozenset body_words, frozenset stopwords, cue_start_re, end_marker_re, date_re):
    """The (n_blocks x 15) statistics of features._text_stats, one row per text (its regexes and
    stopwords given by the caller)."""
    cdef Py_ssize_t n = len(texts), row, i, length
    cdef Py_ssize_t ends, commas, punct, digits, upper
    cdef Py_ssize_t n_words, n_stop, n_title, n_desc, n_body
    cdef Py_UCS4 ch, prev
    cdef str t
    cdef Py_ssize_t start, length_low
    cdef int kind, bits
    cdef void* data
    cdef uint64_t h
    cdef KnownWords known = KnownWords([(stopwords, IN_STOP), (title_words, IN_TITLE),
                                        (desc_words, IN_DESC), (body_words, IN_BODY)])
    cdef SeenWords seen = SeenWords()
    cdef bint has_title = len(title_words) > 0, has_desc = len(desc_words) > 0
    cdef bint has_body = len(body_words) > 0
    out = np.zeros((n, N_STATS), dtype=np.float64)
    cdef double[:, ::1] res = out
    for row in range(n):
        t = texts[row]
        length = len(t)
        ends = commas = punct = digits = upper = 0
        prev = 0
        i = 0
        for ch in t:
            # count_sentences: ". ", "? ", "! " (cannot overlap) and "。"
            if ch == u" " and (prev == u"." or prev == u"?" or prev == u"!"):
                ends += 1
            elif ch == u"。":
                ends += 1
            elif ch == u"," or ch == u"،" or ch == u"、":
                commas += 1
            if ch == u"." or ch == u"|" or ch == u"»" or ch == u"·":
                punct += 1
            if i < HEAD:
                if is_digit(ch):
                    digits += 1
                elif is_upper(ch):
                    upper += 1
            prev = ch
            i += 1
        # text[-1:] in ".!?" is also true for the empty text
        if length == 0 or prev == u"." or prev == u"!" or prev == u"?":
            ends += 1

        # the words of set(re.findall(r"\w+", t.lower())) against the known words
        lowered = t.lower()
        kind = PyUnicode_KIND(lowered)
        data = PyUnicode_DATA(lowered)
        length_low = PyUnicode_GET_LENGTH(lowered)
        seen.reset(length_low // 2 + 1)
        n_words = n_stop = n_title = n_desc = n_body = 0
        i = 0
        while i < length_low:
            if not is_word_char(PyUnicode_READ(kind, data, i)):
                i += 1
                continue
            start = i
            while i < length_low and is_word_char(PyUnicode_READ(kind, data, i)):
                i += 1
            h = _hash(kind, data, start, i)
            if seen.add(h, kind, data, start, i - start):
                n_words += 1
                bits = known.bits(h, kind, data, start, i - start)
                if bits:
                    n_stop += (bits & IN_STOP) != 0
                    n_title += (bits & IN_TITLE) != 0
                    n_desc += (bits & IN_DESC) != 0
                    n_body += (bits & IN_BODY) != 0

        res[row, 0] = ends if ends > 1 else 1
        res[row, 1] = commas
        res[row, 2] = punct
        res[row, 3] = digits
        res[row, 4] = upper
        res[row, 5] = length if length < HEAD else HEAD
        if n_words:
            res[row, 6] = <double>n_stop / <double>n_words
        res[row, 7] = cue_start_re.match(t) is not None
        res[row, 8] = length < 60 and end_marker_re.match(t) is not None
        res[row, 9] = length > 0 and prev == u":"
        res[row, 10] = digits > 0 and length < 120 and date_re.search(t) is not None
        res[row, 11] = counts[t] > 1
        if n_words and has_title:
            res[row, 12] = <double>n_title / <double>(n_words + len(title_words) - n_title)
        if n_words and has_desc:
            res[row, 13] = <double>n_desc / <double>n_words
        if n_words and has_body:
            res[row, 14] = <double>n_body / <double>n_words
    return out
