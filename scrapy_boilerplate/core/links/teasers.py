"""The teasers of a listing: each teased post's headline, the text around it, and its date.

A listing shows each post as a card (a linked headline, a date, a summary) or as one line of a
list ("2024-03-05 » Post title"). For each URL of the posts the page shows, ``page_teasers``
reads the card its first link stands in (core/links/roles.py ``link_cards``, the cards the
roles read) or, outside any card, that link's own block: the headline is the first link text to
that URL (a covered card's empty link: the card's first line), the text is the card's other
text, the date the first date that text shows. Which links are teasers is the caller's call.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from ..metadata.dates import DATE_TEXT_RE, normalize_date
from ..render.urls import page_base
from .anchors import page_anchors
from .roles import card_of, link_cards

if TYPE_CHECKING:
    from ..document.page import Page

#: The characters of a teaser's text kept (a summary, not the post).
SNIPPET_CHARS = 500
#: Blocks of a card read for its text (a listing that shows whole posts has long cards).
CARD_BLOCKS = 12
#: A date is looked for in this many characters of the teaser's text.
DATE_CHARS = 200
_ISO_DATE_RE = re.compile(r"(?<!\d)(?:19|20)\d\d-[01]\d-[0-3]\d(?!\d)")


class Teaser(NamedTuple):
    url: str
    headline: str  # the text of the page's first link to `url` that has one
    text: str  # the card's other text, whitespace collapsed, at most SNIPPET_CHARS
    date: str | None  # ISO 8601, the first date the card's text shows
    date_raw: str | None  # the card's words that date was read from


def page_teasers(page: Page, url: str | None, content: set[str]) -> list[Teaser]:
    """The teasers of `page` for the URLs of `content` (its teased posts: its content links, as
    core/links/roles.py gives them), one per URL, in the order of their first link."""
    if not content or page.root is None:
        return []
    cards, _ = link_cards(page)
    found: dict[str, tuple[str, tuple[int, int] | None]] = {}
    for a in page_anchors(page, page_base(url or page.base_url, page.base_href)):
        if a.key not in content:
            continue
        span = card_of(cards, a.block) if a.block >= 0 else None
        if span is None and a.block >= 0:
            span = (a.block, a.block + 1)
        headline, known = found.get(a.key, ("", None))
        # The first link with a text: a card's headline comes before its "Read more".
        found[a.key] = (headline or " ".join(a.text.split()), known or span)
    teasers = []
    for key, (headline, span) in found.items():
        if not headline and span is not None:
            # A card covered by one empty link (PaperMod's): its first line is its headline.
            headline = " ".join(page.texts[span[0]].split())
        text = _card_text(page, span, headline)
        date_raw = _date_words(text)
        teasers.append(Teaser(key, headline, text, normalize_date(date_raw) if date_raw else None, date_raw))
    return teasers


def _card_text(page: Page, span: tuple[int, int] | None, headline: str) -> str:
    """The text of a card's blocks but its headline, up to SNIPPET_CHARS."""
    if span is None:
        return ""
    start, stop = span
    parts: list[str] = []
    size = 0
    for b in range(start, min(stop, start + CARD_BLOCKS)):
        text = " ".join(page.texts[b].split())
        if headline and headline in text:
            text = text.replace(headline, "", 1).strip(" -–—|·•:»")
        if text:
            parts.append(text)
            size += len(text) + 1
            if size >= SNIPPET_CHARS:
                break
    return " ".join(parts)[:SNIPPET_CHARS].strip()


def _date_words(text: str) -> str | None:
    """The first words of `text` that read as a date ("March 5, 2024", "2024-03-05")."""
    head = text[:DATE_CHARS]
    for pattern in (_ISO_DATE_RE, DATE_TEXT_RE):
        m = pattern.search(head)
        if m is not None and normalize_date(m.group(0)):
            return m.group(0)
    return None
