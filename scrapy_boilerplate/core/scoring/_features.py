# cython: boundscheck=False, wraparound=False, initializedcheck=False, annotation_typing=False
"""The per-block string statistics of features.text_stats (15 numbers per block text), and the
rows of features.token_features.

One source (Cython's pure-Python mode; the C types are in _features.pxd). Compiled, one typed
loop over each text counts its characters (instead of a dozen str.count and re.findall calls),
and a second one cuts the words of t.lower() with re's own character classes (\\w: str.isalnum
or "_"; \\d: str.isdecimal), hashing each where it stands: no word is made into a string; a
block's distinct words are counted in a small hash set (ties checked character by character, so
the counts are exact) and looked up in one table of the page's known words. Run as Python, where
those loops would be slow, regexes and sets of words do the same. The rare, anchored patterns
(cue phrases, end markers, dates) go through the caller's compiled regexes both ways. The values
must stay what they are (the shipped model was trained on them).
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from ..document.words import count_sentences

try:
    import cython
except ModuleNotFoundError:  # run as Python, without Cython (core/_cython.py)
    from .. import _cython as cython  # type: ignore[no-redef]

N_STATS = 15  # columns, in the order of _block_text_stats
HEAD = 200  # digits and upper case are counted in the first 200 characters
# The known words' sets, as bits of one table: stopwords, title, description, JSON-LD body.
IN_STOP = 1
IN_TITLE = 2
IN_DESC = 4
IN_BODY = 8
FNV_OFFSET = 1469598103934665603  # FNV-1a over code points, modulo 2**64 (compiled only)
FNV_PRIME = 1099511628211

WORD_RE = re.compile(r"\w+")
DIGIT_RE = re.compile(r"\d")
UPPER_RE = re.compile(r"[A-ZÀ-ÖØ-ÞА-Я]")


def _text_stats(
    texts: list[str],
    counts: Counter[str],
    title_words: frozenset[str],
    desc_words: frozenset[str],
    body_words: frozenset[str],
    stopwords: frozenset[str],
    cue_start_re: re.Pattern[str],
    cue_openings: bytes,
    end_marker_re: re.Pattern[str],
    end_openings: bytes,
    date_re: re.Pattern[str],
) -> np.ndarray:
    """The (n_blocks x 15) statistics, one row per text (`counts`: how often each text occurs).
    `cue_openings`, `end_openings`: where the two regexes can match (features.openings); compiled,
    they are called only there."""
    if not cython.compiled:
        return np.array(
            [
                _block_text_stats(
                    t, counts, title_words, desc_words, body_words, stopwords, cue_start_re, end_marker_re, date_re
                )
                for t in texts
            ],
            float,
        )
    n = len(texts)
    known = KnownWords([(stopwords, IN_STOP), (title_words, IN_TITLE), (desc_words, IN_DESC), (body_words, IN_BODY)])
    seen = SeenWords()
    has_title = len(title_words) > 0
    has_desc = len(desc_words) > 0
    has_body = len(body_words) > 0
    out = np.zeros((n, N_STATS), dtype=np.float64)
    res = out
    for row in range(n):
        t = texts[row]
        length = len(t)
        ends = commas = punct = digits = upper = 0
        prev = "\0"
        i = 0
        for ch in t:
            # count_sentences: ". ", "? ", "! " (cannot overlap) and "。"
            if ch == " " and (prev == "." or prev == "?" or prev == "!"):
                ends += 1
            elif ch == "。":
                ends += 1
            elif ch == "," or ch == "،" or ch == "、":
                commas += 1
            if ch == "." or ch == "|" or ch == "»" or ch == "·":
                punct += 1
            if i < HEAD:
                if _is_digit(ch):
                    digits += 1
                elif _is_upper(ch):
                    upper += 1
            prev = ch
            i += 1
        # text[-1:] in ".!?" is also true for the empty text
        if length == 0 or prev == "." or prev == "!" or prev == "?":
            ends += 1

        # the words of set(re.findall(r"\w+", t.lower())), against the known words
        lowered = t.lower()
        seen.reset(len(lowered) // 2 + 1)
        start = -1  # where the current word started, or -1
        h = FNV_OFFSET
        i = 0
        for ch in lowered:
            if _is_word_char(ch):
                if start < 0:
                    start = i
                    h = FNV_OFFSET
                h = (h ^ ord(ch)) * FNV_PRIME
            elif start >= 0:
                seen.count(h, lowered, start, i - start, known)
                start = -1
            i += 1
        if start >= 0:
            seen.count(h, lowered, start, i - start, known)

        res[row, 0] = ends if ends > 1 else 1
        res[row, 1] = commas
        res[row, 2] = punct
        res[row, 3] = digits
        res[row, 4] = upper
        res[row, 5] = length if length < HEAD else HEAD
        if seen.n_words:
            res[row, 6] = seen.n_stop / seen.n_words
        res[row, 7] = _may_open(t, length, cue_openings) and cue_start_re.match(t) is not None
        res[row, 8] = length < 60 and _may_open(t, length, end_openings) and end_marker_re.match(t) is not None
        res[row, 9] = length > 0 and prev == ":"
        res[row, 10] = digits >= 4 and length < 120 and date_re.search(t) is not None  # (a date has 4 digits or more)
        res[row, 11] = counts[t] > 1
        if seen.n_words and has_title:
            res[row, 12] = seen.n_title / (seen.n_words + len(title_words) - seen.n_title)
        if seen.n_words and has_desc:
            res[row, 13] = seen.n_desc / seen.n_words
        if seen.n_words and has_body:
            res[row, 14] = seen.n_body / seen.n_words
    return out


def _block_text_stats(
    t: str,
    counts: Counter[str],
    title_words: frozenset[str],
    desc_words: frozenset[str],
    body_words: frozenset[str],
    stopwords: frozenset[str],
    cue_start_re: re.Pattern[str],
    end_marker_re: re.Pattern[str],
    date_re: re.Pattern[str],
) -> tuple[int, int, int, int, int, int, float, bool, bool, bool, bool, bool, float, float, float]:
    """The statistics of one block, as Python: sets of lower-cased words give the stopword share
    and the metadata overlaps as C-level set operations."""
    head = t[:HEAD]
    n_digits = len(DIGIT_RE.findall(head))
    words = frozenset(WORD_RE.findall(t.lower()))
    n_words = len(words)
    short = len(t)
    return (
        count_sentences(t),
        t.count(",") + t.count("،") + t.count("、"),
        t.count(".") + t.count("|") + t.count("»") + t.count("·"),
        n_digits,
        len(UPPER_RE.findall(head)),
        len(head),
        len(words & stopwords) / n_words if n_words else 0.0,
        cue_start_re.match(t) is not None,
        short < 60 and end_marker_re.match(t) is not None,
        t.endswith(":"),
        n_digits >= 4 and short < 120 and date_re.search(t) is not None,  # (a date has 4 digits or more)
        counts[t] > 1,
        _jaccard(words, title_words),
        _cover(words, desc_words),
        _cover(words, body_words),
    )


def _token_rows(chains: list[tuple[str, ...]], vocabulary: dict[str, int], out: np.ndarray) -> None:
    """Set out[i, j] to 1 where block i's id/class chain (`chains[i]`) holds the token of
    `vocabulary` whose column is j, and every other cell to 0. The same loop compiled and run as
    Python: each distinct chain is looked up in the vocabulary once."""
    out[:] = 0
    res = out
    columns: dict[tuple[str, ...], list[int]] = {}  # a chain's columns, per distinct chain
    for i in range(len(chains)):
        chain = chains[i]
        hits = columns.get(chain)
        if hits is None:
            hits = columns[chain] = [vocabulary[t] for t in chain if t in vocabulary]
        for j in hits:
            res[i, j] = 1.0


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def _cover(a: frozenset[str], b: frozenset[str]) -> float:
    """Share of the block's words found in b."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a)


# The compiled loops' helpers (their Python counterparts above are regexes and sets).


def _is_word_char(ch: str) -> bool:
    """re's \\w (ASCII spelled out: str.isalnum is a table lookup or more)."""
    if ch < "\x80":
        return ("a" <= ch <= "z") or ("A" <= ch <= "Z") or ("0" <= ch <= "9") or ch == "_"
    return ch.isalnum()


def _is_digit(ch: str) -> bool:
    """re's \\d."""
    if ch < "\x80":
        return "0" <= ch <= "9"
    return ch.isdecimal()


def _is_upper(ch: str) -> bool:
    """UPPER_RE: [A-ZÀ-ÖØ-ÞА-Я]."""
    return ("A" <= ch <= "Z") or ("À" <= ch <= "Ö") or ("Ø" <= ch <= "Þ") or ("А" <= ch <= "Я")


def _may_open(t: str, length: int, openings: bytes) -> bool:
    """Whether a regex whose openings are `openings` (features.openings) can match `t`."""
    if length < 2:
        return True
    a = ord(t[0])
    b = ord(t[1])
    if a >= 128 or b >= 128:
        return True
    if not (48 <= a <= 57 or 65 <= a <= 90 or 97 <= a <= 122 or a == 95):  # not [0-9A-Za-z_]
        return True
    return openings[128 * a + b] != 0


def _same(a: str, start_a: int, b: str, start_b: int, length: int) -> bool:
    """a[start_a:start_a + length] == b[start_b:start_b + length], without making either."""
    for k in range(length):
        if a[start_a + k] != b[start_b + k]:
            return False
    return True


class KnownWords:
    """Open-addressing table of the page's known words: word -> which of its sets hold it."""

    def __init__(self, sets: list[tuple[frozenset[str], int]]) -> None:
        total = sum(len(words) for words, _bit in sets)
        size = 16
        while size < 2 * total:
            size *= 2
        self.mask = size - 1
        self.hashes = np.zeros(size, np.ulonglong)
        self.bits_of = np.zeros(size, np.intc)
        self.words: list[str | None] = [None] * size  # None: an empty slot
        for words, bit in sets:
            for word in words:
                if len(word):
                    self.add(word, bit)

    def add(self, word: str, bit: int) -> None:
        h = FNV_OFFSET
        for ch in word:
            h = (h ^ ord(ch)) * FNV_PRIME
        i = self.find(h, word, 0, len(word))
        if self.words[i] is None:
            self.hashes[i] = h
            self.words[i] = word
        self.bits_of[i] |= bit

    def find(self, h: int, s: str, start: int, n: int) -> int:
        """The slot of the word s[start:start + n], or the empty slot where it would go."""
        i = h & self.mask
        while True:
            word = self.words[i]
            if word is None or (self.hashes[i] == h and len(word) == n and _same(s, start, word, 0, n)):
                return i
            i = (i + 1) & self.mask


class SeenWords:
    """The distinct words of one block (a reusable open-addressing set of (hash, place) in the
    block's lowered text), and how many of them each set of known words holds. Only the slots a
    block used are cleared for the next (a long block must not make every short one pay for
    clearing a large table)."""

    def __init__(self) -> None:
        self.size = self.mask = self.n_used = 0
        self.n_words = self.n_stop = self.n_title = self.n_desc = self.n_body = 0
        self.hashes = np.zeros(0, np.ulonglong)  # (reset makes the tables)
        self.starts = self.lengths = self.used = np.zeros(0, np.intp)

    def reset(self, max_words: int) -> None:
        size = 16
        while size < 2 * max_words:
            size *= 2
        if size > self.size:
            self.hashes = np.zeros(size, np.ulonglong)
            self.starts = np.zeros(size, np.intp)
            self.lengths = np.zeros(size, np.intp)  # 0: an empty slot
            self.used = np.zeros(size, np.intp)
            self.size = size
            self.mask = size - 1
        else:
            for k in range(self.n_used):
                self.lengths[self.used[k]] = 0
        self.n_used = 0
        self.n_words = self.n_stop = self.n_title = self.n_desc = self.n_body = 0

    def count(self, h: int, s: str, start: int, n: int, known: KnownWords) -> None:
        """Count the word s[start:start + n] (hash h) when it is new in this block."""
        i = h & self.mask
        while self.lengths[i]:
            if self.hashes[i] == h and self.lengths[i] == n and _same(s, start, s, self.starts[i], n):
                return
            i = (i + 1) & self.mask
        self.hashes[i] = h
        self.starts[i] = start
        self.lengths[i] = n
        self.used[self.n_used] = i
        self.n_used += 1
        self.n_words += 1
        bits = known.bits_of[known.find(h, s, start, n)]  # an empty slot holds no bits
        if bits:
            self.n_stop += (bits & IN_STOP) != 0
            self.n_title += (bits & IN_TITLE) != 0
            self.n_desc += (bits & IN_DESC) != 0
            self.n_body += (bits & IN_BODY) != 0
