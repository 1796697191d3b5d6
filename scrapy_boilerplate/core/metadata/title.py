"""The page's headline: an h1 that matches the metadata title, else the metadata title."""

from __future__ import annotations

import re

from ..document.page import Page
from ..document.words import clean_text

# Title separators. Three uses read them differently, and each use's set is part of its
# measured behaviour, so each has its own name here:
#: What separates the site's name from the headline in a <title> or og:title ("Headline | Site",
#: "Headline :: Site"): one or two of | - – — · : between single spaces.
SITE_NAME_SEPARATOR_RE = re.compile(r" [|\-–—·:]{1,2} ")
#: Where a "Headline | Site name" title is cut to keep the headline, tried in this order.
HEADLINE_SEPARATORS = (" | ", " - ", " – ", " — ", " :: ")
#: Between the parts of a <title> as the overview evidence counts them ("Politics - News - Site",
#: "Home » Shoes"): one of | - – — : · » between runs of whitespace.
TITLE_PART_SEPARATOR_RE = re.compile(r"\s+[|\-–—:·»]\s+")


def best_title(page: Page) -> str | None:
    """The page headline: an h1 matching the metadata title, else the metadata title; in NFC,
    without soft hyphens (the h1's block is clean already, the metadata title is made so here)."""
    title = _best_title(page)
    return clean_text(title) if title else title


def _best_title(page: Page) -> str | None:
    meta = page.main_title
    meta_words = set(meta.lower().split()) if meta else set()
    # The <title> as well: a JSON-LD "headline" can be a description (Wikipedia's is
    # "constitutional monarchy in Oceania" for "New Zealand").
    title_words = set(page.title.lower().split()) if page.title and page.title != meta else set()
    # The site's name: what follows the headline in a "Headline | Site" title, or og:site_name.
    site_names = {part.strip().lower() for part in SITE_NAME_SEPARATOR_RE.split(meta)[1:]} if meta else set()
    if page.og.get("site_name"):
        site_names.add(page.og["site_name"].lower())
    for text, tag in zip(page.texts, page.tags):
        # An h1 without a letter is a counter or a score (a vote count in an h1), not a headline;
        # an h1 that holds the site's name is its logo.
        if (tag == "h1" and len(text) < 300 and any(ch.isalpha() for ch in text)
                and text.lower() not in site_names):
            words = set(text.lower().split())
            if not meta_words or len(words & meta_words) >= 0.5 * len(words):
                return text
            if meta is page.jsonld.get("headline") and len(words & title_words) >= 0.5 * len(words):
                return text
    if meta:
        # "Headline | Site name": keep the headline part.
        for sep in HEADLINE_SEPARATORS:
            if sep in meta:
                head = meta.split(sep)[0].strip()
                if len(head) > 15:
                    return head
    return meta
