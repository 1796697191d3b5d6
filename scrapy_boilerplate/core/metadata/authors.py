"""Author names as pages write them, cleaned to a list of names: each once, no "By", no dates,
job titles, URLs or markup. A value that is none of these is dropped, never repaired by guessing."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from ..document.words import clean_text

if TYPE_CHECKING:
    from collections.abc import Iterable

#: Names kept per page; a field with more is a list of contributors or a tag cloud.
MAX_AUTHORS = 10
#: A name longer than this (characters, words) is a sentence, not a name.
MAX_NAME_CHARS = 60
MAX_NAME_WORDS = 6
#: Characters of a raw author value read at all.
MAX_VALUE_CHARS = 1000

_TAG_RE = re.compile(r"<(script|style)\b.*?(?:</\1\s*>|$)|<[^>]*>", re.I | re.S)
#: "By", "Written by", "Text by"... before a byline's names.
PREFIX_RE = re.compile(
    r"^\s*(?:(?:posted|written|published|reviewed|updated|story|text|words|photos?)\s+)?"
    r"(?:by|von|par|por|di|door|av|af|przez|od|autor(?:in)?|author|auteur|écrit par|escrito por)"
    r"\s*[:\-–—]?\s+",
    re.I,
)
_LABEL_RE = re.compile(r"^\s*(?:authors?|autor(?:en)?|auteurs?|byline)\s*[:\-–—]\s*", re.I)
# Between names: a comma, "&", or "and" in a few languages (lower case: "E" is an initial).
_AND = r"(?:and|And|AND|und|et|y|e|og|en|i|och|és)"
# ", and" of a list ("A, B, and C") is one separator: the comma must not leave "and C" a name.
_SPLIT_RE = re.compile(rf"\s*(?:,\s*(?:{_AND}|&)\s|,|;|\s&\s|\s\+\s|\s{_AND}\s)\s*")
# What follows the last name of "A and B" after a comma is the outlet or a role, not a name:
# "A, B, C, and D, CNN", "Jane Doe and John Roe, Reuters".
_AFTER_LAST_RE = re.compile(rf"(?:\s&\s|\s{_AND}\s)[^,;]+(,[^,;]*)$")
# A date or a time in a "name": "Jane Doe 12.03.2024", "3 March 2024".
_DATE_LIKE_RE = re.compile(r"\d{1,4}[./:-]\d|\d{4}|\d\s+\w")
# What follows a name in a byline: "Jane Doe | Staff Writer", "Jane Doe · 3 March", "Jane Doe - Reuters",
# "Chris McNamara ⋅ Founder", "Jane Doe ● December 23, 2025".
_TAIL_RE = re.compile(r"\s+(?:[|·•⋅●∙/]|[-–—]\s)\s*.*$")
# Academic and professional letters after a name ("Jane Doe, MD, PhD").
_CREDENTIAL_RE = re.compile(r"^(?:[A-Z][A-Za-z]{0,3}\.?){1,4}(?:[-\s]?\d+)?®?$|^ph\.?\s?d\.?$", re.I)
_CREDENTIAL_WORDS = {
    "md",
    "m.d.",
    "phd",
    "ph.d.",
    "ph.d",
    "rn",
    "rd",
    "ms",
    "msc",
    "mba",
    "dds",
    "do",
    "jr",
    "jr.",
    "sr",
    "sr.",
    "esq",
    "cpa",
    "cfa",
    "cfp",
    "ii",
    "iii",
    "facp",
    "faan",
}
# Words of a byline's furniture, never of a name ("Written By", "5 mins read", "Share").
_FURNITURE_RE = re.compile(
    r"\b(?:by|read|mins?|minutes?|written|posted|updated|published|views?|"
    r"comments?|share|follow|handle|email|login|about)\b",
    re.I,
)
# Values that stand where a name should be: form labels, placeholders, roles.
_NOT_NAMES = {
    "admin",
    "administrator",
    "author",
    "authors",
    "by",
    "editor",
    "editors",
    "guest",
    "staff",
    "name",
    "your name",
    "sign in",
    "log in",
    "login",
    "register",
    "anonymous",
    "unknown",
    "user",
    "null",
    "none",
    "undefined",
    "n/a",
    "na",
    "webmaster",
    "root",
    "team",
    "contributor",
    "posted",
    "share",
    "follow",
    "subscribe",
    "comments",
    "comment",
    "reply",
    "more",
    "read more",
    "blog",
}


def clean_authors(values: Iterable[object], limit: int = MAX_AUTHORS) -> list[str]:
    """Names from raw author strings (each may hold several names), each once, in page order."""
    names: list[str] = []
    seen: set[str] = set()
    for value in values:
        for name in split_names(value):
            key = name.casefold()
            if key not in seen:
                seen.add(key)
                names.append(name)
                if len(names) >= limit:
                    return names
    return names


def split_names(value: object) -> list[str]:
    """The names in one raw author value ("By Jane Doe and John Roe | Staff"), cleaned."""
    if not isinstance(value, str):
        return []
    text = value[:MAX_VALUE_CHARS]
    if "&" in text:
        text = html.unescape(text)
    text = clean_text(text)
    if "<" in text:
        text = _TAG_RE.sub(" ", text)
    text = " ".join(text.split())
    if not text or "://" in text or "www." in text.lower() or text.startswith("@"):
        return []  # a URL or a social-media handle, not a name
    text = _LABEL_RE.sub("", text)
    text = PREFIX_RE.sub("", text)
    text = _TAIL_RE.sub("", text)
    after_last = _AFTER_LAST_RE.search(text)
    if after_last:
        text = text[: after_last.start(1)]
    names = []
    for position, part in enumerate(_SPLIT_RE.split(text)):
        part = part.strip()
        if position and _is_credential(part):
            continue  # "Jane Doe, MD, PhD"
        name = clean_name(part)
        if name:
            names.append(name)
    return names


def _is_credential(part: str) -> bool:
    return part.casefold() in _CREDENTIAL_WORDS or (
        " " not in part and part.isupper() and bool(_CREDENTIAL_RE.match(part))
    )


def clean_name(text: str) -> str | None:
    """One person's (or organisation's) name, or None when `text` is not one."""
    name = text.strip(" \t\"'“”‘’«»[]{}.,;:-–—|·•*@")
    if name.count("(") != name.count(")"):
        name = name.strip("()")
    if name.endswith(".") or (name and name[-1] == "." and len(name.split()[-1]) > 2):
        name = name.rstrip(".")
    if len(name) < 2 or len(name) > MAX_NAME_CHARS or len(name.split()) > MAX_NAME_WORDS:
        return None
    lower = name.casefold()
    if lower in _NOT_NAMES or lower in _CREDENTIAL_WORDS or any(ch in name for ch in "@/»›"):
        return None
    if not any(ch.isalpha() for ch in name) or _DATE_LIKE_RE.search(name) or ":" in name:
        return None  # a date, a time or a label, not a name
    if " " in name and (any(ch.isdigit() for ch in name) or _FURNITURE_RE.search(name)):
        return None  # "Sofia Gonzalez December 2", "Written By"; "luiz4" is a user name
    return name
