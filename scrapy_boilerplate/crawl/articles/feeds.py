"""Feeds for ArticleSpider: where a page announces its feeds, and the entry links of a feed.

Both cost time linear in their input: URLs are kept once each in insertion-ordered dicts, a feed is
read as a stream (xml_stream.py) and no further than its first `max_entries` entries
(BOILERPLATE_FEED_MAX_ENTRIES).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ...core.links.urls import link_key
from .xml_stream import chunks, ended, localname

if TYPE_CHECKING:
    from lxml import etree

    from ...core.document.page import Page

FEED_TYPES = ("application/rss+xml", "application/atom+xml", "application/feed+json", "application/rdf+xml")
#: The elements of a feed's entries: RSS (and RDF) ``<item>``, Atom ``<entry>``.
ENTRIES = frozenset({"item", "entry"})


class FeedEntries(NamedTuple):
    """The entry links of a feed, each once, in the feed's order."""

    urls: list[str]
    #: The feed has more entries than were read (`max_entries`).
    capped: bool


def feed_urls(page: Page, base: str | None) -> list[str]:
    """The feeds a page announces: ``<link rel="alternate" type="application/rss+xml" href>``."""
    root = page.root
    if root is None:
        return []
    found: dict[str, None] = {}
    for el in root.iter("link"):
        rel = (el.get("rel") or "").lower().split()
        if "alternate" in rel and (el.get("type") or "").lower().strip() in FEED_TYPES:
            url = link_key(el.get("href"), base)
            if url is not None:
                found[url] = None
    return list(found)


def feed_entry_urls(body: bytes, base: str | None, max_entries: int) -> FeedEntries:
    """The links of a feed's first `max_entries` entries: RSS ``<item><link>``, Atom ``<entry><link
    href>`` (the alternate one, or the first); none for what is not a feed or does not parse."""
    urls: dict[str, None] = {}
    read = 0
    for entry in ended(chunks(body), ENTRIES):
        if read == max_entries:
            return FeedEntries(list(urls), capped=True)
        read += 1
        url = _entry_url(entry, base)
        if url is not None:
            urls[url] = None
    return FeedEntries(list(urls), capped=False)


def _entry_url(entry: etree._Element, base: str | None) -> str | None:
    links = [child for child in entry if localname(child.tag) == "link"]
    if localname(entry.tag) == "item":
        # The first <link> with text (an RSS item may also hold an Atom <atom:link href/>).
        text = next((link.text for link in links if link.text), None)
        return link_key(text.strip(), base) if text is not None else None
    chosen = next((link for link in links if (link.get("rel") or "alternate") == "alternate"), None)
    return link_key(chosen.get("href"), base) if chosen is not None else None
