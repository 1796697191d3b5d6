"""A link card's source label: the outlet's name after its teaser, not content.

A post that links an article shows it as a card (a forum's unfurled link, an
aggregator's box, a "via" box): the linked headline, the teaser, and the
outlet's name or host on a line of its own ("www.businessinsider.com",
"Time"); a standfirst box may end with the outlet's own name the same way.
The teaser is prose, so the model keeps it; the label, one short line between
the teaser and the text after the box, costs the decoder two switches to
leave out, so it stays, and the text reads "... for the troubled nation."
then a stray "Time". Here a kept short line is dropped when it is the last
block of a small box whose other kept text holds a teaser, and the line names
the site of a link in the box that leads off the page's site (its host, or
its name as the host spells it: "Business Insider" for businessinsider.com),
or the page's own site (its host's name, og:site_name). A name the page
mentions as content (a brand's section heading, a quote's author, the site's
own name in a sentence) is a heading, or names no such site, or is not the
last line of a small box after a teaser: measured on the three sets, only the
cards' labels went.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import numpy as np

from ..document.elements import HEADING_TAGS

if TYPE_CHECKING:
    from lxml import etree

    from ..document.page import Page

#: A label: at most this long and this many words, no sentence end.
LABEL_MAX_CHARS = 40
LABEL_MAX_WORDS = 4
SENTENCE_END_RE = re.compile(r"[.!?:;,…]\s*$")
#: The card: a box of at most this much text, looked for this many levels above the label's block.
BOX_MAX_CHARS = 800
BOX_LEVELS = 2
#: Its teaser: a kept block of this many characters, mostly not link text.
TEASER_MIN_CHARS = 40
_NOT_ALNUM_RE = re.compile(r"[^0-9a-z]+")


def drop_source_labels(page: Page, mask: np.ndarray) -> None:
    """Unkeep the kept source labels of link cards (the module docstring says which)."""
    chars, texts = page.chars, page.texts
    own_host = None
    for i in np.flatnonzero(mask & (page.arrays.chars <= LABEL_MAX_CHARS)).tolist():
        if page.tags[i] in HEADING_TAGS or 2 * page.link_chars[i] >= chars[i]:
            continue
        text = texts[i]
        if len(text.split()) > LABEL_MAX_WORDS or SENTENCE_END_RE.search(text):
            continue
        box = _card_box(page, mask, i)
        if box is None:
            continue
        if own_host is None:
            own_host = _host(page.base_url)
        if _names_site(text, page, own_host) or _names_link(text, page.node_elements[box], own_host):
            mask[i] = False


def _card_box(page: Page, mask: np.ndarray, i: int) -> int | None:
    """The small box that ends with block `i` and holds a kept teaser before it, or None."""
    node = page.nodes[i]
    for _ in range(BOX_LEVELS + 1):
        if node < 0 or page.node_last[node] != i + 1 or page.node_chars[node] > BOX_MAX_CHARS:
            return None
        first = page.node_first[node]
        if first < i:
            teaser = any(
                mask[j] and page.chars[j] >= TEASER_MIN_CHARS and 2 * page.link_chars[j] < page.chars[j]
                for j in range(first, i)
            )
            return node if teaser else None
        node = page.node_parents[node]
    return None


def _names_site(text: str, page: Page, own_host: str) -> bool:
    """`text` is the page's own site name: its host's name or og:site_name, as letters and digits."""
    squashed = _NOT_ALNUM_RE.sub("", text.lower())
    if len(squashed) < 3:
        return False
    parts = own_host.split(".")
    if len(parts) > 1 and squashed in (parts[-2], _NOT_ALNUM_RE.sub("", own_host)):
        return True
    site_name = page.og.get("site_name")
    return site_name is not None and squashed == _NOT_ALNUM_RE.sub("", site_name.lower())


def _names_link(text: str, box: etree._Element, own_host: str) -> bool:
    """`text` names the site of a link in `box` that leads off the page's own site."""
    label = text.strip().lower()
    label = label[4:] if label.startswith("www.") else label
    squashed = _NOT_ALNUM_RE.sub("", label)
    if len(squashed) < 3:
        return False
    for a in box.iter("a"):
        host = _host(a.get("href"))
        if not host or host == own_host:
            continue
        parts = host.split(".")
        if label == host or squashed in (_NOT_ALNUM_RE.sub("", host), parts[-2] if len(parts) > 1 else ""):
            return True
    return False


def _host(url: str | None) -> str:
    """The host of an absolute http(s) URL, lowercased, without "www."; "" for any other."""
    if not url or not url.startswith(("http://", "https://")):
        return ""
    try:
        host = urlsplit(url.strip()).hostname or ""
    except ValueError:
        return ""
    return host[4:] if host.startswith("www.") else host
