"""Feeds for ArticleSpider: where a page announces its feeds, and the entry links of a feed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lxml import etree

from ..core.links.roles import link_key

if TYPE_CHECKING:
    from ..core.document.page import Page

FEED_TYPES = ("application/rss+xml", "application/atom+xml", "application/feed+json", "application/rdf+xml")


def feed_urls(page: Page, base: str | None) -> list[str]:
    """The feeds a page announces: ``<link rel="alternate" type="application/rss+xml" href>``."""
    root = page.root
    if root is None:
        return []
    found = []
    for el in root.iter("link"):
        rel = (el.get("rel") or "").lower().split()
        if "alternate" in rel and (el.get("type") or "").lower().strip() in FEED_TYPES:
            url = link_key(el.get("href"), base)
            if url is not None and url not in found:
                found.append(url)
    return found


def feed_entry_urls(body: bytes, base: str | None) -> list[str]:
    """The links of a feed's entries: RSS ``<item><link>``, Atom ``<entry><link href>`` (the
    alternate one, or the first); [] for what is not a feed or does not parse."""
    try:
        parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True, huge_tree=False)
        root = etree.fromstring(body, parser)
    except (etree.XMLSyntaxError, ValueError):
        return []
    if root is None:
        return []
    urls: list[str] = []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        tag = etree.QName(el).localname
        if tag == "item":
            for child in el:
                if isinstance(child.tag, str) and etree.QName(child).localname == "link" and child.text:
                    _add(urls, link_key(child.text.strip(), base))
                    break
        elif tag == "entry":
            links = [c for c in el if isinstance(c.tag, str) and etree.QName(c).localname == "link"]
            chosen = next((c for c in links if (c.get("rel") or "alternate") == "alternate"), None)
            if chosen is not None:
                _add(urls, link_key(chosen.get("href"), base))
    return urls


def _add(urls: list[str], url: str | None) -> None:
    if url is not None and url not in urls:
        urls.append(url)
