# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled per-block string statistics (see features.text_stats).

The reference is the Python twin, features._text_stats: this module must
give the very same numbers (the shipped model was trained on them). The
character counts are one typed loop over each text instead of a dozen
str.count and re.findall calls; words are cut from t.lower() in a second
loop with re's own character classes (\\w: Py_UNICODE_ISALNUM or "_";
\\d: Py_UNICODE_ISDECIMAL), so the word set holds the same strings. The
rare, anchored patterns (cue phrases, end markers, dates) still go through
the caller's compiled regexes.
"""

import numpy as np

from cpython.unicode cimport Py_UNICODE_ISALNUM, Py_UNICODE_ISDECIMAL

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


cdef set word_set(str lowered):
    """set(re.findall(r"\\w+", lowered))"""
    cdef set words = set()
    cdef Py_ssize_t i = 0, start = -1
    cdef Py_UCS4 ch
    for ch in lowered:
        if is_word_char(ch):
            if start < 0:
                start = i
        elif start >= 0:
            words.add(lowered[start:i])
            start = -1
        i += 1
    if start >= 0:
        words.add(lowered[start:i])
    return words


def text_stats(list texts, counts, frozenset title_words, frozenset desc_words,
               frozenset body_words, frozenset stopwords, cue_start_re, end_marker_re, date_re):
    """The (n_blocks x 15) statistics of features._text_stats, one row per text."""
    cdef Py_ssize_t n = len(texts), row, i, length
    cdef Py_ssize_t ends, commas, punct, digits, upper
    cdef Py_ssize_t n_words, n_stop, n_title, n_desc, n_body
    cdef Py_UCS4 ch, prev
    cdef str t
    cdef set words
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

        words = word_set(t.lower())
        n_words = len(words)
        n_stop = n_title = n_desc = n_body = 0
        for w in words:
            if w in stopwords:
                n_stop += 1
            if has_title and w in title_words:
                n_title += 1
            if has_desc and w in desc_words:
                n_desc += 1
            if has_body and w in body_words:
                n_body += 1

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
