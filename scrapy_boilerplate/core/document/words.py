"""Small text statistics shared by the walk and the features."""

import re

# Han, kana and Hangul syllables: scripts written without spaces between words
# (Hangul has spaces, but counting its syllables keeps one scale for all three).
CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


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
