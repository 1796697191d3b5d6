# cython: boundscheck=False, wraparound=False
"""parse._valid_utf8's check: is a byte string valid UTF-8, as Python's strict decoder says.

One source (Cython's pure-Python mode): compiled, a loop over the bytes that decodes nothing
(decoding builds a str as large as the page, only to drop it), skipping ASCII, most of any page,
eight bytes at a time; run as Python, where that loop would be slow, the decoder itself.
"""

from __future__ import annotations

try:
    import cython
except ModuleNotFoundError:  # run as Python, without Cython (core/_cython.py)
    from .. import _cython as cython  # type: ignore[no-redef]

if cython.compiled:  # C's memcpy: eight bytes read as one word (compiled only)
    from cython.cimports.libc.string import memcpy


def _is_utf8(data: bytes) -> bool:
    """Whether `data` is valid UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF)."""
    if not cython.compiled:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True
    n: cython.Py_ssize_t = len(data)
    p: cython.p_const_uchar = cython.cast(cython.p_const_uchar, data)
    i: cython.Py_ssize_t = 0
    b: cython.uchar
    lo: cython.uchar
    hi: cython.uchar
    more: cython.int
    k: cython.int
    word: cython.ulonglong = 0
    high_bits: cython.ulonglong = 0x8080808080808080  # a byte of 80-FF in a word: not ASCII
    while i < n:
        if i + 8 <= n:
            memcpy(cython.address(word), cython.address(p[i]), 8)
            if (word & high_bits) == 0:
                i += 8
                continue
        b = p[i]
        if b < 0x80:
            i += 1
            continue
        # The second byte's range depends on the first (no overlong forms, no surrogates, nothing
        # above U+10FFFF); later ones are 80-BF.
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
        if not (lo <= p[i + 1] <= hi):
            return False
        for k in range(2, more + 1):
            if not (0x80 <= p[i + k] <= 0xBF):
                return False
        i += more + 1
    return True
