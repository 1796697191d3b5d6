"""The encoding of a page that declares none and is not UTF-8.

Browsers read such a page in their locale's legacy encoding; a crawler has no locale, and reading a
GB2312 page as windows-1252 leaves nothing right to extract. So the encoding is guessed from the
bytes, by charset-normalizer (installed with Scrapy, through tldextract and requests) limited to
the legacy encodings pages are written in, and given only the page's text: markup is ASCII and
says nothing of the encoding (benchmarks/undeclared_charsets.py measured the choice).

Only called when nothing is declared and UTF-8 fails, so ordinary pages never pay for it.
"""

from __future__ import annotations

import logging
import re

logger = logging.getLogger(__name__)

#: The legacy encodings of the web the guess chooses among (Python codec names), windows-1252
#: first: the guess falls back to it, as it did before guessing, where the bytes say nothing.
#: No other Latin encoding (windows-1250, -1254, -1257): on a page of English with a few accents
#: they read as well as windows-1252 to the detector, and "naïve" would come out "naďve".
LEGACY_ENCODINGS = (
    "cp1252",
    "gb18030",
    "big5",
    "shift_jis",
    "euc_jp",
    "euc_kr",
    "cp1251",
    "koi8_r",
    "cp1253",
    "cp1255",
    "cp1256",
    "cp874",
)
FALLBACK = "cp1252"
#: Bytes of the page read for its text at most, and bytes of text given to the detector at most
#: (its cost grows with them; more did not decode more pages right).
MAX_READ = 512 * 1024
MAX_SAMPLE = 8 * 1024
WINDOW = 32 * 1024
#: Non-ASCII letters in words of two or more non-ASCII characters the guess must read, else
#: windows-1252: a real Chinese, Japanese or Russian page has hundreds.
MIN_LETTERS = 10
_NON_ASCII_RUN_RE = re.compile(r"[^\x00-\x7f]{2,}")
# Scripts, styles, comments and tags: ASCII in every encoding above (no trail byte is "<" or ">").
_MARKUP_RE = re.compile(rb"<(?:script\b.*?</script\s*>|style\b.*?</style\s*>|!--.*?-->|[^>]*>)", re.I | re.S)
# A word holding a non-ASCII byte (starting only at a word's start: linear on long ASCII runs).
_NON_ASCII_WORD_RE = re.compile(rb"(?<!\S)\S*?[\x80-\xff]\S*")


def text_sample(data: bytes) -> bytes:
    """The words of the page's text that hold non-ASCII bytes, its markup removed, at most
    MAX_SAMPLE bytes cut at a space (never inside a character); b"" when there are none.

    English around a few Russian words would outweigh them: the detector sees only the words
    that tell. Read in windows ending at a tag, until the sample is full (most pages: one)."""
    words: list[bytes] = []
    size, start, end = 0, 0, min(len(data), MAX_READ)
    while start < end and size < MAX_SAMPLE:
        stop = data.find(b"<", min(start + WINDOW, end))
        stop = end if stop < 0 or stop > end else stop
        found = _NON_ASCII_WORD_RE.findall(_MARKUP_RE.sub(b" ", data[start:stop]))
        if stop == end < len(data) and found:
            found.pop()  # the page was cut: its last word may be cut inside a character
        words += found
        size += sum(len(word) + 1 for word in found)
        start = stop
    sample = b" ".join(words)
    if len(sample) > MAX_SAMPLE:
        cut = sample.rfind(b" ", 0, MAX_SAMPLE)
        sample = sample[: cut if cut > 0 else MAX_SAMPLE]
    return sample


def guess_encoding(data: bytes) -> str:
    """The legacy encoding `data` (not UTF-8, no declared charset) is most likely written in:
    a Python codec name from LEGACY_ENCODINGS; FALLBACK where charset-normalizer is missing or
    finds none."""
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # not installed (Scrapy installs it): read as before guessing
        return FALLBACK
    sample = text_sample(data)
    if not sample:  # the non-ASCII bytes were all in the markup
        return FALLBACK
    # The whole sample, in chunks of 512 bytes (by default it reads 5 chunks only).
    steps = max(1, len(sample) // 512)
    best = from_bytes(sample, steps=steps, chunk_size=512, cp_isolation=list(LEGACY_ENCODINGS)).best()
    if best is None or best.encoding not in LEGACY_ENCODINGS or best.encoding == FALLBACK:
        return FALLBACK
    # A few symbols and accents ("£300", "©", "café") tell nothing: other encodings read them as
    # letters too, but only as single letters among ASCII, never as words.
    if _letters_in_words(str(best)) < MIN_LETTERS:
        return FALLBACK
    # Where windows-1252 reads the words as cleanly ("Corey’s" is the same in windows-1251), keep it:
    # charset-normalizer stops at its first clean reading, whichever it tried first.
    western = from_bytes(sample, steps=steps, chunk_size=512, cp_isolation=[FALLBACK]).best()
    if western is not None and western.chaos <= best.chaos:
        return FALLBACK
    return best.encoding


def _letters_in_words(text: str) -> int:
    """Non-ASCII letters that stand next to another non-ASCII character."""
    return sum(char.isalpha() for run in _NON_ASCII_RUN_RE.findall(text) for char in run)
