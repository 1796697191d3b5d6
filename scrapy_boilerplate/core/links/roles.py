"""Every link of a page with one role, read from the page's own analysis.

A crawler that follows every link spends most of its requests on pages that are neither
articles nor the pages that lead to them. The walk already knows where each link stands: in
the kept content or a teaser card, in a menu, a footer, a sidebar, a share bar, a comment
section, a related-stories box, a pager. So each ``<a href>`` (and ``<area href>``, the
elements Scrapy's ``LinkExtractor`` reads) gets one role:

- ``content``: a teaser or headline link of a listing's cards, or a link inside an article's
  kept text;
- ``next``: the next page of this listing (or of this article): ``rel=next``, "Next", "Older
  posts", "Weiter", "Suivant", "下一页", an arrow, the number after the current one in a pager
  (on a page that is not a listing, only a pager's: there "Next" leads to the next post);
- ``navigation``: menus, section, tag, category and author links, breadcrumbs, footer site
  maps, the other pages of a pager;
- ``related``: related-story boxes beside an article;
- ``boilerplate``: legal, login and account, share intents, print, feeds and files, comment
  replies, calendar cells, sort and filter variants of a list, ``mailto:``, ``javascript:``,
  links to the page itself.

The head's ``<link rel=next|prev|bookmark|tag|author>`` hints are links too (no ``LinkExtractor``
follows them, but a ``<a>`` to the same URL is then ``next``). URLs are absolute, resolved against
``<base href>``, and normalised as a Scrapy request normalises them (w3lib's ``safe_url_string``),
without their fragment: the form requests are matched on (``link_key``).
"""

from __future__ import annotations

import dataclasses
import re
from bisect import bisect_right
from collections import Counter
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..document.elements import FLAG, HEADING_TAGS
from ..render.urls import page_base
from ..scoring import ttr
from ..selection.cards import HEAD_BLOCKS, HEADLINE_LINK_CHARS, SHORT_HEADLINE_LINK_CHARS, Span, card_groups
from .anchors import Anchor, page_anchors
from .pager import NUMBER_RE, link_direction, pager_next
from .urls import JUNK_URL, LISTING_URL, continues, link_key, url_host, url_kind, url_shape

if TYPE_CHECKING:
    from lxml import etree

    from ..document.page import Page
    from ..overview.detector import OverviewVerdict

ROLES = ("content", "next", "navigation", "related", "boilerplate")
CONTENT, NEXT, NAVIGATION, RELATED, BOILERPLATE = ROLES
#: When one URL has several links on a page, the request for it takes the most useful role.
ROLE_RANK = {NEXT: 0, CONTENT: 1, NAVIGATION: 2, RELATED: 3, BOILERPLATE: 4}


class Link(NamedTuple):
    url: str  # absolute, normalised as requests are, no fragment (non-http(s): as written)
    text: str  # the link's text, whitespace collapsed ('' for an image link or a head hint)
    role: str  # one of ROLES


#: Menus, the header, the footer and sidebars: where a link is the site's, not the page's.
OUTSIDE = FLAG["nav"] | FLAG["header"] | FLAG["footer"] | FLAG["aside"]
# The walk's share cue also reads "print" (Tailwind's "print:hidden" is on every kind of link):
# share bars are known by their own names below.
_JUNK = FLAG["comment"] | FLAG["ad"] | FLAG["cookie"] | FLAG["newsletter"]

SHARE_TOKENS = frozenset(
    (
        "share",
        "sharing",
        "shares",
        "sharedaddy",
        "sharethis",
        "addthis",
        "addtoany",
        "a2a",
        "social-share",
        "share-buttons",
        "sharing-buttons",
        "shariff",
        "ssba",
    )
)
CALENDAR_TOKENS = frozenset(("calendar", "wp-calendar", "calendar_wrap", "calendar-wrap"))
RELATED_TOKENS = frozenset(
    (
        "related",
        "related-posts",
        "relatedposts",
        "similar",
        "recommended",
        "you-may-also-like",
        "more-stories",
        "jp-relatedposts",
        "yarpp",
    )
)
_NON_HTTP_RE = re.compile(
    r"^\s*(?:mailto|javascript|tel|sms|data|ftp|file|skype|whatsapp|fb-messenger)\s*:", re.IGNORECASE
)


def page_links(
    page: Page,
    url: str | None = None,
    *,
    mask: np.ndarray | None = None,
    is_overview: bool | None = None,
    url_patterns: bool = True,
) -> list[Link]:
    """Every ``<a href>`` and ``<area href>`` of the walked `page` (in document order; the first
    MAX_LINKS), then the head's link hints, each with its role.

    `url`: the page's URL (else the one it was walked with). `mask`: the extraction's kept blocks,
    when there is one (without it, TextSweeper's region and the teaser cards stand for the
    content). `is_overview`: the overview verdict (None: judged from the teaser cards alone).
    `url_patterns`: read page numbers in URLs (``page/3``) to find the next page as well as the
    page's words, rel hints and pager.
    """
    root = page.root
    if root is None:
        return []
    page_url = url or page.base_url
    base = page_base(page_url, page.base_href)
    self_key = link_key(page_url, None) if page_url else None
    anchors = page_anchors(page, base)
    head_next, hints = head_hints(root, base)
    cards, headlines = link_cards(page)
    if is_overview is None:
        is_overview = bool(cards)
    content = _content_blocks(page, mask, cards)
    next_pages = pager_next(page, anchors, self_key, url_patterns)
    read_more = _read_more(anchors)
    roles = [
        _role(page, a, i, self_key, head_next, next_pages, content, cards, headlines, is_overview, read_more)
        for i, a in enumerate(anchors)
    ]
    # A second link to a content URL from the content ("Read more", the teaser's image) is content too.
    content_keys = {a.key for a, role in zip(anchors, roles) if role == CONTENT}
    links = []
    for i, (a, role) in enumerate(zip(anchors, roles)):
        if role == NAVIGATION and a.key in content_keys and a.block >= 0 and content[a.block]:
            role = CONTENT
        elif role == NEXT and a.key in content_keys and i not in next_pages:
            role = CONTENT  # a teaser's "»" to the post its headline links: never a next page
        links.append(Link(a.key if a.key is not None else a.href.strip(), a.text, role))
    for hint in hints:
        # The head's rel=next of an article is its next post (MkDocs, some themes), not a next page.
        if hint.role == NEXT and not is_overview and not continues(self_key, hint.url):
            hint = hint._replace(role=NAVIGATION)
        links.append(hint)
    return links


def crowding(roles: dict[str, str]) -> dict[str, int]:
    """URL -> how crowded its navigation link is: log2 of the number of the page's navigation
    links with its URL's host and shape (url_shape), rounded down (0 for a link of a shape of its own). A
    tag cloud or a list of monthly archives gives each of its many links a small part of the site;
    a section's or a language's home, a shape of its own on the page, a large part: a crawl
    fetches it first."""
    shapes = {url: (url_host(url), url_shape(url)) for url, role in roles.items() if role == NAVIGATION}
    counts = Counter(shapes.values())
    return {url: counts[shape].bit_length() - 1 for url, shape in shapes.items()}


def url_roles(links: list[Link]) -> dict[str, str]:
    """URL -> the most useful role among the page's links to it (ROLE_RANK): what a request for
    that URL is matched to in a crawl. On a page with a next link, the other pages of its numbered
    pager count as next pages too: Scrapy keeps a URL's first request, and page 3 is first seen in
    page 1's pager, not as page 2's next link."""
    roles: dict[str, str] = {}
    has_next = any(link.role == NEXT for link in links)
    for link in links:
        role = link.role
        if has_next and role == NAVIGATION and NUMBER_RE.match(link.text):
            role = NEXT
        known = roles.get(link.url)
        if known is None or ROLE_RANK[role] < ROLE_RANK[known]:
            roles[link.url] = role
    return roles


#: A page reached by a content link is an article unless its own score says plainly otherwise.
CONTENT_LINK_MAX_SCORE = 0.9


def reached_by(verdict: OverviewVerdict, role: str | None) -> OverviewVerdict:
    """The overview verdict on a page, with the role of the link it was reached by as evidence
    (None: not known, a start page): a page reached by a listing's next link is a listing; one
    reached by a teaser or a link in an article's text is an article, unless its score is
    CONTENT_LINK_MAX_SCORE or more. The score stays the page's own."""
    if role == NEXT and not verdict.is_overview:
        return dataclasses.replace(
            verdict, is_overview=True, reason=verdict.reason + "; reached by a next link: a listing"
        )
    if role == CONTENT and verdict.is_overview and verdict.score < CONTENT_LINK_MAX_SCORE:
        return dataclasses.replace(
            verdict, is_overview=False, reason=verdict.reason + "; reached by a content link: an article"
        )
    return verdict


def head_hints(root: etree._Element, base: str | None) -> tuple[set[str], list[Link]]:
    """(the URLs of the head's rel=next, the head's link hints as Links)."""
    nexts: set[str] = set()
    hints: list[Link] = []
    for el in root.iter("link"):
        rel = (el.get("rel") or "").lower().split()
        role = (
            NEXT
            if "next" in rel
            else NAVIGATION
            if ("prev" in rel or "previous" in rel or "tag" in rel or "author" in rel)
            else CONTENT
            if "bookmark" in rel
            else None
        )
        if role is None:
            continue
        key = link_key(el.get("href"), base)
        if key is None:
            continue
        if role == NEXT:
            nexts.add(key)
        hints.append(Link(key, "", role))
    return nexts, hints


def link_cards(page: Page) -> tuple[list[Span], set[int]]:
    """(the (first, last) block spans of the page's teaser cards, in groups of 3 or more, sorted;
    the blocks holding their headline links). Short linked names count as headlines, as in the
    extraction's second pass ("Barett", a craft post's title)."""
    spans: list[Span] = []
    headlines: set[int] = set()
    link_chars, chars = page.link_chars, page.chars
    for cards in card_groups(page, OUTSIDE, short_headlines=True).values():
        if len(cards) < 3:
            continue
        for start, stop in cards:
            spans.append((start, stop))
            for b in range(start, min(stop, start + HEAD_BLOCKS)):
                if link_chars[b] >= HEADLINE_LINK_CHARS or (
                    link_chars[b] >= SHORT_HEADLINE_LINK_CHARS and 2 * link_chars[b] >= chars[b]
                ):
                    headlines.add(b)
                    break
    spans.sort()
    return spans, headlines


def _content_blocks(page: Page, mask: np.ndarray | None, cards: list[Span]) -> np.ndarray:
    """The blocks that are the page's content: the extraction's kept blocks when given, else
    TextSweeper's region; and the teaser cards either way."""
    n = len(page)
    if mask is not None and len(mask) == n:
        content = np.array(mask, dtype=bool)
    else:
        content = np.zeros(n, dtype=bool)
        region, _ = ttr.best_region(page)
        if region >= 0:
            content[page.node_first[region] : page.node_last[region]] = True
    for start, stop in cards:
        content[start:stop] = True
    return content


def card_of(cards: list[Span], block: int) -> Span | None:
    """The card of `cards` (sorted spans) that holds `block`, or None."""
    at = bisect_right(cards, (block, 1 << 30)) - 1
    if at >= 0 and cards[at][0] <= block < cards[at][1]:
        return cards[at]
    return None


def _read_more(anchors: list[Anchor]) -> set[int]:
    """Indices of the links whose "next" words or arrow are a teaser's "»" or "Continue →", not a
    next page: the same words lead to several pages (one under each of a list's posts; a page
    has one next page), or another link of the page gives the target a title (a post's)."""
    targets: dict[str, set[str]] = {}
    said: dict[str, list[int]] = {}
    titled: set[str] = set()
    for i, a in enumerate(anchors):
        if a.key is None or "next" in a.rel:
            continue
        if link_direction(a) > 0:
            words = " ".join(a.text.split()).lower()
            targets.setdefault(words, set()).add(a.key)
            said.setdefault(words, []).append(i)
        elif len(a.text.strip()) >= HEADLINE_LINK_CHARS:
            titled.add(a.key)
    return {i for words, keys in targets.items() for i in said[words] if len(keys) > 1 or anchors[i].key in titled}


# --- the role --------------------------------------------------------------------------------


def _role(
    page: Page,
    a: Anchor,
    i: int,
    self_key: str | None,
    head_next: set[str],
    next_pages: set[int],
    content: np.ndarray,
    cards: list[Span],
    headlines: set[int],
    is_overview: bool,
    read_more: set[int],
) -> str:
    # Not http(s), the page itself (a fragment, a skip link, the current page of a pager), or a URL
    # that says it is no article's way.
    if a.key is None or a.key == self_key or _NON_HTTP_RE.match(a.href):
        return BOILERPLATE
    kind = url_kind(a.key)
    if kind == JUNK_URL:
        return BOILERPLATE
    direction = 0 if i in read_more else link_direction(a)
    if i in next_pages or ((direction > 0 or a.key in head_next) and (is_overview or continues(self_key, a.key))):
        return NEXT
    if direction > 0:
        # On an article, "Next" and rel=next lead to the next post (another article), whatever
        # the theme calls its box, unless the link continues the article itself.
        return NAVIGATION
    if a.flags & _JUNK or not CALENDAR_TOKENS.isdisjoint(a.tokens) or not SHARE_TOKENS.isdisjoint(a.tokens):
        return BOILERPLATE
    in_card = a.block >= 0 and card_of(cards, a.block) is not None
    if not is_overview and not in_card and (a.flags & FLAG["related"] or not RELATED_TOKENS.isdisjoint(a.tokens)):
        return RELATED
    if direction < 0 or NUMBER_RE.match(a.text) or "tag" in a.rel or "author" in a.rel or "category" in a.rel:
        return NAVIGATION
    if kind == LISTING_URL:
        return NAVIGATION
    if "bookmark" in a.rel:
        return CONTENT
    if a.block < 0 or not content[a.block]:
        return NAVIGATION
    if a.flags & OUTSIDE and not in_card:
        return NAVIGATION
    b = a.block
    chars, links = page.chars[b], page.link_chars[b]
    if in_card:
        # A card's headline and its "read more" lead to the item; its other short links (dates,
        # authors, categories) to lists.
        return CONTENT if b in headlines or len(a.text) >= HEADLINE_LINK_CHARS else NAVIGATION
    if page.tags[b] in HEADING_TAGS:
        return CONTENT  # a linked headline, or a link in a subheading of the text
    if is_overview:
        # In a listing's content: headline-like links lead to items, short ones to lists.
        return CONTENT if len(a.text) >= HEADLINE_LINK_CHARS or links >= HEADLINE_LINK_CHARS else NAVIGATION
    # An article's content: links in its text; a block of short links only is a list of tags or sections.
    if links >= 0.8 * chars and chars < 60 and len(a.text) < HEADLINE_LINK_CHARS:
        return NAVIGATION
    return CONTENT
