"""The page's headline: an h1 that matches the metadata title, else the metadata title."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

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
#: Host labels that name a kind of site, not the site ("blog.golang.org": "The Go Blog").
GENERIC_HOST_LABELS = frozenset(("blog", "blogs", "news", "shop", "store", "forum", "forums", "docs", "help"))


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
    # In a "Site | Headline" title (its first part names the host, "O'Reilly Japan - Head
    # First..." on oreilly.co.jp), a longer part after it is the headline, not the site.
    parts = [part.strip() for part in SITE_NAME_SEPARATOR_RE.split(meta)] if meta else []
    site_names = {part.lower() for part in parts[1:]}
    h1_texts = _h1_texts(page)
    # (the host is read only when an h1 says a part after the first: on few pages)
    if any(text.lower() in site_names for text in h1_texts) and _names_host(parts[0], page):
        if not _names_host(parts[-1], page):
            site_names = {p.lower() for p in parts[1:] if len(p) <= len(parts[0]) or _names_host(p, page)}
    if page.og.get("site_name"):
        site_names.add(page.og["site_name"].lower())
    for text in h1_texts:
        # An h1 without a letter is a counter or a score (a vote count in an h1), not a headline;
        # an h1 that holds the site's name is its logo.
        if len(text) < 300 and any(ch.isalpha() for ch in text) and text.lower() not in site_names:
            text = _without_logo_text(text, page)
            words = set(text.lower().split())
            shared = len(words & meta_words)
            # Half the h1's words in the metadata title; against a JSON-LD headline, more than
            # one of a short h1's (a blog's name, "Minecraft News", shares one word with its
            # post's headline).
            if not meta_words or (
                shared >= 0.5 * len(words) and (shared > 1 or len(words) == 1 or meta != page.jsonld.get("headline"))
            ):
                return text
            if meta is page.jsonld.get("headline") and len(words & title_words) >= 0.5 * len(words):
                return text
            if meta and _heads(text, meta):
                return text
    if meta:
        # "Headline | Site name": keep the headline part.
        for sep in HEADLINE_SEPARATORS:
            if sep in meta:
                head = meta.split(sep)[0].strip()
                if len(head) > 15:
                    return head
    return meta


def _names_host(part: str, page: Page) -> bool:
    """Whether a part of the title names the page's host: it holds one of the host's labels of
    four letters or more ("O'Reilly Japan" on www.oreilly.co.jp; not "blog" of blog.golang.org)."""
    try:
        host = (urlsplit(page.base_url).hostname or "") if page.base_url else ""
    except ValueError:  # "http://[::1": no host to read
        return False
    key = "".join(ch for ch in part.casefold() if ch.isalnum())
    return any(len(label) >= 4 and label not in GENERIC_HOST_LABELS and label in key for label in host.split(".")[:-1])


def _heads(text: str, meta: str) -> bool:
    """Whether an h1 is the metadata title's headline part in a script written without spaces,
    where words cannot be matched: the title is the h1, a separator, and a shorter rest
    ("ゴールデンウィーク...注意喚起：IPA 独立行政法人 情報処理推進機構")."""
    rest = meta[len(text) :]
    if not rest or len(rest) >= len(text) or not meta.startswith(text):
        return False
    return not (rest[0].isalnum() or rest[0].isspace())


def _h1_texts(page: Page) -> list[str]:
    """The h1 blocks' texts in page order, but those of an h1 whose id or class (or an
    ancestor's) says "logo" (h1#website-logo, h1.site-logo) after all the others: a site that
    puts its logo in an h1 puts the headline in another (h1#page-title)."""
    headlines: list[str] = []
    logos: list[str] = []
    for text, tag, tokens in zip(page.texts, page.tags, page.tokens):
        if tag == "h1":
            (logos if "logo" in tokens else headlines).append(text)
    return headlines + logos


def _without_logo_text(text: str, page: Page) -> str:
    """An h1's text without the site's name glued to it by the logo link in the same h1
    ("<h1><span>Headline</span><a href="/">Site</a></h1>" walks to "HeadlineSite"). The name is
    the last part of the <title> or og:title ("Headline » Section » Site"), or og:site_name; it is
    cut only where the two are glued: a lower-case letter runs into the upper-case one that starts
    the next ("InfantaUltima Hora"). A name after a space can be the headline's own last words."""
    names = [
        TITLE_PART_SEPARATOR_RE.split(clean_text(t))[-1].strip()
        for t in (page.main_title, page.title)
        if t and TITLE_PART_SEPARATOR_RE.search(t)
    ]
    if page.og.get("site_name"):
        names.append(clean_text(page.og["site_name"].strip()))
    for name in sorted(set(names), key=lambda n: (-len(n), n)):  # the longest first
        if len(name) < 3 or len(name) >= len(text) - 3:
            continue
        if text.endswith(name) and text[-len(name) - 1].islower() and name[0].isupper():
            return text[: -len(name)].strip()
        if text.startswith(name) and name[-1].islower() and text[len(name)].isupper():
            return text[len(name) :].strip()
    return text
