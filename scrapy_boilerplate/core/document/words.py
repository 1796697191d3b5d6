"""Small text statistics shared by the walk and the features."""

import re
import unicodedata

# Han, kana and Hangul syllables: scripts written without spaces between words
# (Hangul has spaces, but counting its syllables keeps one scale for all three).
CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


#: The soft hyphen (U+00AD): a hint where a word may break, never part of the word.
SOFT_HYPHEN = "\xad"

#: Control characters: C0 but tab, newline and carriage return; DEL; C1 (U+0080-U+009F).
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: What a control character in a page's text becomes. Those str.split() takes for whitespace (VT,
#: FF, U+001C-U+001F) a space. C1 the windows-1252 character of the same byte, as HTML reads the
#: character references &#128;-&#159;: such text is windows-1252 read as Latin-1 ("we\x92re" is
#: "we’re", "\x93Hi\x94" is "“Hi”"). The others (the rest of C0, DEL, the five bytes windows-1252
#: has no character for) no reader sees: nothing (_DROPPED_RE).
_C1_HOLES = (0x81, 0x8D, 0x8F, 0x90, 0x9D)
_CONTROL_CHARACTERS = {
    **{code: " " for code in (0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x1F)},
    **{code: bytes([code]).decode("cp1252") for code in range(0x80, 0xA0) if code not in _C1_HOLES},
}
# A run of the characters dropped, with the space on each side of it (one is kept, see below).
_DROPPED_RE = re.compile("( ?)[\x00-\x08\x0e-\x1b\x7f\x81\x8d\x8f\x90\x9d]+( ?)")


def drop_controls(text: str) -> str:
    """`text` without control characters (_CONTROL_CHARACTERS says what each becomes). A run
    dropped between two spaces takes one of them, and one at the start or end of a line takes the
    space next to it, so text whose whitespace was normalised stays so ("a \x02 b": "a b")."""
    if not _CONTROL_RE.search(text):
        return text
    return _DROPPED_RE.sub(_without_run, text).translate(_CONTROL_CHARACTERS)


def _without_run(match: re.Match[str]) -> str:
    before, after = match.group(1), match.group(2)
    if before and after:
        return " "
    text, start, end = match.string, match.start(), match.end()
    if start == 0 or text[start - 1] == "\n" or end == len(text) or text[end] == "\n":
        return ""
    return before or after


def clean_text(text: str) -> str:
    """`text` in Unicode NFC without soft hyphens and control characters (drop_controls): what
    every output holds (DESIGN.md, Metrics), so a search for "Während" finds "Wa\u0308hrend" and
    "Wäh\xadrend". Text that is already clean comes back as it is, at the cost of a scan or two."""
    text = drop_controls(text)
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
