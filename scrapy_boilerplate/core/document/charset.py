"""The encoding of a page that declares none and is not UTF-8.

Browsers read such a page in their locale's legacy encoding; a crawler has no locale, and reading a
GB2312 page as windows-1252 leaves nothing right to extract. So the encoding is guessed from the
bytes, by charset-normalizer (installed with Scrapy, through tldextract and requests) limited to
the legacy encodings pages are written in, and given only the page's text: markup is ASCII and
says nothing of the encoding (benchmarks/undeclared_charsets.py measured the choice).

Only called when nothing is declared and the bytes are not (mostly) UTF-8 (parse.py), so ordinary
pages never pay for it.
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
# A word holding a non-ASCII byte (starting only at a word's start: linear on long ASCII runs).
_NON_ASCII_WORD_RE = re.compile(rb"(?<!\S)\S*?[\x80-\xff]\S*")
# What ends a script or a style sheet after its "</script" or "</style".
_END_TAG_REST_RE = re.compile(rb"\s*>")


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
        found = _NON_ASCII_WORD_RE.findall(strip_markup(data[start:stop]))
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


def strip_markup(data: bytes) -> bytes:
    """`data` with every script, style sheet, comment and tag replaced by a space: markup is ASCII
    in every encoding above (no trail byte is "<" or ">") and says nothing of the encoding.

    What re.sub(rb"<(?:script\\b.*?</script\\s*>|style\\b.*?</style\\s*>|!--.*?-->|[^>]*>)", b" ",
    data, flags=re.I | re.S) gives, in one pass: that pattern looks for the end of each "<" it
    meets again, to the end of the bytes, so thousands of "<" or "<script" without their end cost
    time in the square of their number. Here each kind of end is searched for going forward only
    and remembered (none after a point stays none after any later one)."""
    lower = data.lower()  # ASCII letters only: the offsets stay the same
    ends = _Ends(lower)
    pieces = []
    pos = 0
    while True:
        lt = lower.find(b"<", pos)
        if lt < 0:
            break
        end = -1
        if lower.startswith(b"script", lt + 1) and not _is_word_byte(lower, lt + 7):
            end = ends.after(b"</script", lt + 7)
        elif lower.startswith(b"style", lt + 1) and not _is_word_byte(lower, lt + 6):
            end = ends.after(b"</style", lt + 6)
        elif lower.startswith(b"!--", lt + 1):
            end = ends.after(b"-->", lt + 4)
        if end < 0:  # a tag, or a script, style sheet or comment that never ends: its tag
            end = lower.find(b">", lt + 1) + 1
            if not end:  # no ">" after: nothing after is markup
                break
        pieces.append(data[pos:lt])
        pos = end
    if not pieces:
        return data
    pieces.append(data[pos:])
    return b" ".join(pieces)


def _is_word_byte(data: bytes, at: int) -> bool:
    """True when the byte at `at` is one of \\w's in a bytes pattern (a letter, digit or "_")."""
    byte = data[at : at + 1]
    return byte.isalnum() or byte == b"_"


class _Ends:
    """Where the first end of a script ("</script" then "\\s*>"), a style sheet ("</style" then
    "\\s*>") or a comment ("-->") at or after an offset ends, asked for offsets that only grow:
    the last answer of each kind is kept, and holds until the offset passes it (a kind with no end
    after one offset has none after a later one), so each kind's search reads the bytes once."""

    __slots__ = ("data", "known")

    def __init__(self, data: bytes) -> None:
        self.data = data
        # Per marker: (the offset searched from, where the end starts or -1 for none, where it ends).
        self.known: dict[bytes, tuple[int, int, int]] = {}

    def after(self, marker: bytes, offset: int) -> int:
        """Where the first end that starts with `marker` at or after `offset` ends; -1 for none."""
        known = self.known.get(marker)
        if known is not None:
            since, start, end = known
            if start < 0 and offset >= since:
                return -1
            if start >= offset:
                return end
        data, at = self.data, offset
        while True:
            start = data.find(marker, at)
            if start < 0:
                self.known[marker] = (offset, -1, -1)
                return -1
            end = start + len(marker)
            if marker != b"-->":
                match = _END_TAG_REST_RE.match(data, end)
                if match is None:  # "</scripts", "</script x>": not the end
                    at = start + 1
                    continue
                end = match.end()
            self.known[marker] = (offset, start, end)
            return end


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
