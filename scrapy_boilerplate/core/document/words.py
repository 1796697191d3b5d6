"""Small text statistics shared by the walk and the features."""

import re
import unicodedata

# Han, kana and Hangul syllables: scripts written without spaces between words
# (Hangul has spaces, but counting its syllables keeps one scale for all three).
CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


#: The soft hyphen (U+00AD): a hint where a word may break, never part of the word.
SOFT_HYPHEN = "\xad"


def clean_text(text: str) -> str:
    """`text` in Unicode NFC without soft hyphens: what every output holds (DESIGN.md, Metrics),
    so a search for "Während" finds "Wa\u0308hrend" and "Wäh\xadrend". ASCII text and text that is
    already clean come back as they are, at the cost of one scan."""
    if text.isascii():
        return text
    if SOFT_HYPHEN in text:
        text = text.replace(SOFT_HYPHEN, "")
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text


def count_words(text: str) -> int:
    """Whitespace words, plus one word per two CJK characters (CJK has no spaces)."""
    words = len(text.split())
    if not text.isascii():
        cjk = len(CJK_RE.findall(text))
        if cjk:
            words += cjk // 2
    return words


def count_sentences(text: str) -> int:
    """Sentence ends: ". ", "? ", "! " (and CJK full stops), plus a final one."""
    ends = text.count(". ") + text.count("? ") + text.count("! ") + text.count("。")
    return max(1, ends + (text[-1:] in ".!?"))
