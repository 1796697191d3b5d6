# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled twin of parse.py: parse._is_utf8, is a byte string valid UTF-8, as Python's strict decoder
says, without decoding it (decoding builds a str as large as the page, only to drop it).

ASCII, most of any page, is skipped eight bytes at a time.
"""

from libc.stdint cimport uint64_t
from libc.string cimport memcpy


def _is_utf8(const unsigned char[::1] data) -> bool:
    cdef bint ok = True
    if data.shape[0]:
        with nogil:
            ok = _valid(&data[0], data.shape[0])
    return ok


cdef bint _valid(const unsigned char* data, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i = 0
    cdef uint64_t word
    cdef unsigned char b, lo, hi
    cdef int more, k
    while i < n:
        if i + 8 <= n:
            memcpy(&word, &data[i], 8)
            if (word & <uint64_t>0x8080808080808080) == 0:
                i += 8
                continue
        b = data[i]
        if b < 0x80:
            i += 1
            continue
        # The second byte's range depends on the first (no overlong forms, no
        # surrogates, nothing above U+10FFFF); later ones are 80-BF.
        lo, hi = 0x80, 0xBF
        if 0xC2 <= b <= 0xDF:
            more = 1
        elif b == 0xE0:
            more, lo = 2, 0xA0
        elif 0xE1 <= b <= 0xEC or b == 0xEE or b == 0xEF:
            more = 2
        elif b == 0xED:
            more, hi = 2, 0x9F
        elif b == 0xF0:
            more, lo = 3, 0x90
        elif 0xF1 <= b <= 0xF3:
            more = 3
        elif b == 0xF4:
            more, hi = 3, 0x8F
        else:
            return False
        if i + more >= n:
            return False
        if not (lo <= data[i + 1] <= hi):
            return False
        for k in range(2, more + 1):
            if not (0x80 <= data[i + k] <= 0xBF):
                return False
        i += more + 1
    return True
