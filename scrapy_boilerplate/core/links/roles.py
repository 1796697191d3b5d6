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

from ..document.cues import unit_cues
from ..document.elements import FLAG, HEADING_TAGS
from ..render.urls import page_base
from ..scoring import ttr
from ..selection.cards import HEAD_BLOCKS, HEADLINE_LINK_CHARS, SHORT_HEADLINE_LINK_CHARS, Span, card_groups
from .anchors import Anchor, page_anchors
from .urls import JUNK_URL, LISTING_URL, continues, is_home, link_key, same_site, url_host, url_kind, url_shape

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

_ARROWS_NEXT = "»›→⟩>"
_ARROWS_PREV = "«‹←⟨<"
_ARROWS = frozenset(_ARROWS_NEXT + _ARROWS_PREV)
_TRIM = _ARROWS_NEXT + _ARROWS_PREV + " \t\n|·•:.…-–—()[]"
# The words of a "next page" link (without arrows), across languages: on a listing "older"
# is the next page (newest first).
NEXT_TEXT_RE = re.compile(
    r"^(?:next|next page|next posts?|next entries|next articles|older|older posts?|older entries|"
    r"older articles|older stories|more posts|more articles|weiter|nächste|nächste seite|ältere beiträge|"
    r"ältere einträge|ältere artikel|suivant|suivante|page suivante|articles plus anciens|"
    r"billets plus anciens|plus anciens|siguiente|página siguiente|entradas anteriores|"
    r"artículos anteriores|publicaciones anteriores|entradas antiguas|más antiguos|próxima|"
    r"próxima página|posts antigos|postagens mais antigas|mais antigos|avanti|successivo|successiva|"
    r"pagina successiva|volgende|oudere berichten|następna|starsze wpisy|следующая|далее|"
    r"предыдущие записи|下一页|下一頁|下页|后一页|次へ|次のページ|次|다음|다음 페이지)$",
    re.IGNORECASE,
)
PREV_TEXT_RE = re.compile(
    r"^(?:prev|previous|previous page|previous posts?|previous entries|newer|newer posts?|newer entries|"
    r"newer articles|zurück|vorherige|vorherige seite|neuere beiträge|neuere einträge|précédent|"
    r"précédente|page précédente|articles plus récents|plus récents|anterior|página anterior|"
    r"entradas siguientes|entradas más recientes|más recientes|posts recentes|postagens mais recentes|"
    r"mais recentes|precedente|pagina precedente|vorige|nieuwere berichten|poprzednia|nowsze wpisy|"
    r"предыдущая|назад|上一页|上一頁|上页|前一页|前へ|前のページ|前|이전|이전 페이지|first|last|"
    r"erste|letzte|première|dernière|primera|última|primeira)$",
    re.IGNORECASE,
)
# Icon links (no text) whose class names say where they go: "fa-chevron-right", "icon-next".
NEXT_ICON_TOKENS = frozenset(
    (
        "next",
        "right",
        "chevron-right",
        "arrow-right",
        "angle-right",
        "forward",
        "older",
        "caret-right",
        "angle-double-right",
    )
)
PREV_ICON_TOKENS = frozenset(
    ("prev", "previous", "left", "chevron-left", "arrow-left", "angle-left", "back", "newer", "caret-left")
)
PAGER_TOKENS = frozenset(
    (
        "pagination",
        "pager",
        "paging",
        "paginator",
        "pagenav",
        "nav-links",
        "page-numbers",
        "pages",
        "wp-pagenavi",
        "page-nav",
        "pagenavi",
        "navigation",
        "nav-previous",
        "nav-next",
        "page-number",
    )
)
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
# A listing's pager by its own name (not "navigation" or "nav-links", which WordPress also gives
# the links to the previous and next post), and the names of those post links.
STRICT_PAGER_TOKENS = frozenset(
    (
        "pagination",
        "pager",
        "paging",
        "paginator",
        "pagenav",
        "page-numbers",
        "wp-pagenavi",
        "pagenavi",
        "page-nav",
        "page-number",
        "pagination-item",
    )
)
POST_NAV_TOKENS = frozenset(
    (
        "post-navigation",
        "post-nav",
        "postnav",
        "nextpost",
        "prevpost",
        "post-nav-next",
        "post-nav-item",
        "single-navigation",
        "entry-navigation",
    )
)
# The same names as the walk splits an element's class names into words ("post-navigation" ->
# post, navigation): the tokens of walked elements are kept so.
_POST_NAV_WORDS = tuple({frozenset(unit_cues(name)[1]) for name in POST_NAV_TOKENS})
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
# A page-number pattern of the URL: ".../page/3/", "/page3", "index3.html", "?page=3", "?p=3".
PAGE_NUMBER_URL_RE = re.compile(
    r"(?:(?<=/)page/?|(?<=/)index|[?&](?:page|paged|p|pg|start|offset)=)(\d{1,5})"
    r"(?=/?$|\.html?$|&|#)",
    re.IGNORECASE,
)
_NUMBER_RE = re.compile(r"^\d{1,5}$")
# A pager's text is its numbers, an ellipsis, arrows and the current page: the current number is
# read from the text of a group of number links only when it holds at most this many blocks (on
# the twenty shared sites at most 2 more than its links); a larger group is a region that holds
# number links, whose other numbers are no page's.
_PAGER_BLOCKS_PER_LINK = 2
_PAGER_EXTRA_BLOCKS = 8
#: No "next" or "previous" link text is longer (with its arrows and spaces).
_LONGEST_DIRECTION = 40
_WORD_NUMBERS_RE = re.compile(r"(?<!\d)\d{1,5}(?!\d)")
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
    pager_next = _pager_next(page, anchors, self_key, url_patterns)
    read_more = _read_more(anchors)
    roles = [
        _role(page, a, i, self_key, head_next, pager_next, content, cards, headlines, is_overview, read_more)
        for i, a in enumerate(anchors)
    ]
    # A second link to a content URL from the content ("Read more", the teaser's image) is content too.
    content_keys = {a.key for a, role in zip(anchors, roles) if role == CONTENT}
    links = []
    for i, (a, role) in enumerate(zip(anchors, roles)):
        if role == NAVIGATION and a.key in content_keys and a.block >= 0 and content[a.block]:
            role = CONTENT
        elif role == NEXT and a.key in content_keys and i not in pager_next:
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
        if has_next and role == NAVIGATION and _NUMBER_RE.match(link.text):
            role = NEXT
        known = roles.get(link.url)
        if known is None or ROLE_RANK[role] < ROLE_RANK[known]:
            roles[link.url] = role
    return roles


def own_pager(page: Page, url: str | None = None) -> bool:
    """Whether `page` has a pager of its own: a link to another page of its host that is the next
    page of a numbered pager (the number after the current one), or a next, previous or numbered
    link inside a listing's pager by its own name (``pagination``, ``pager``; not a post's
    previous/next navigation). URL patterns are not read."""
    root = page.root
    if root is None:
        return False
    page_url = url or page.base_url
    self_key = link_key(page_url, None) if page_url else None
    anchors = page_anchors(page, page_base(page_url, page.base_href))
    numbered = _pager_next(page, anchors, self_key, False)
    host = url_host(self_key)
    for i, a in enumerate(anchors):
        if a.key is None or a.key == self_key or (host and url_host(a.key) != host) or url_kind(a.key) == JUNK_URL:
            continue
        if i in numbered:
            return True
        if (
            not STRICT_PAGER_TOKENS.isdisjoint(a.tokens)
            and not _in_post_nav(page, a)
            and (_NUMBER_RE.match(a.text) or link_direction(a))
        ):
            return True
    return False


def leads_elsewhere(page: Page, url: str | None = None) -> bool | None:
    """Whether `page` links to a page of its own host other than itself and the host's home page
    (feeds, files, share and legal links not counted): an overview leads to other pages, and an
    article with a gallery whose links all lead to itself or home (a craft blog's short post) does
    not. None when the page's URL is not known (its host then is not either)."""
    root = page.root
    page_url = url or page.base_url
    self_key = link_key(page_url, None) if page_url else None
    host = url_host(self_key)
    if root is None or not host:
        return None
    for a in page_anchors(page, page_base(page_url, page.base_href)):
        key = a.key
        if key is None or key == self_key or url_host(key) != host or is_home(key):
            continue
        if url_kind(key) != JUNK_URL:
            return True
    return False


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


# --- the next page --------------------------------------------------------------------------


def _words(text: str) -> str:
    return " ".join(text.strip(_TRIM).split()).lower()


def _arrow(text: str) -> int:
    """+1 for a text that is only a forward arrow ("»", "›", ">>"), -1 for a backward one, else 0."""
    t = text.replace(" ", "")
    if not t or t[0] not in _ARROWS:
        return 0  # most texts: no arrow to read
    if all(c in _ARROWS_NEXT for c in t):
        return 1
    if all(c in _ARROWS_PREV for c in t):
        return -1
    return 0


def link_direction(a: Anchor) -> int:
    """+1: the link says "next" (rel, words, arrow, icon); -1: "previous"; 0: neither."""
    if "next" in a.rel:
        return 1
    if "prev" in a.rel or "previous" in a.rel:
        return -1
    if len(a.text) > _LONGEST_DIRECTION:
        return 0  # a headline, not "Older posts »"
    words = _words(a.text)
    if words:
        if NEXT_TEXT_RE.match(words):
            return 1
        if PREV_TEXT_RE.match(words):
            return -1
        return _arrow(a.text)
    arrow = _arrow(a.text)
    if arrow:
        return arrow
    if not a.text.strip():
        if not NEXT_ICON_TOKENS.isdisjoint(a.tokens) or any("next" in t or "right" in t for t in a.tokens):
            return 1
        if not PREV_ICON_TOKENS.isdisjoint(a.tokens) or any("prev" in t or "left" in t for t in a.tokens):
            return -1
    return 0


def _pager_next(page: Page, anchors: list[Anchor], self_key: str | None, url_patterns: bool) -> set[int]:
    """Indices of the anchors that are the next page by a numbered pager: the number after the
    current page's (the one not linked, or linked to the page itself), in the group of number
    links it stands in; with `url_patterns`, also the links whose URL is this page's with the
    page number plus one."""
    found: set[int] = set()
    groups: dict[int, list[int]] = {}
    for i, a in enumerate(anchors):
        if a.node >= 0 and _NUMBER_RE.match(a.text):
            group = a.node
            while group >= 0 and page.node_tags[group] in ("li", "span"):
                group = page.node_parents[group]
            groups.setdefault(group, []).append(i)
    for group, members in groups.items():
        numbers = {int(anchors[i].text): i for i in members}
        if len(numbers) < 2 and PAGER_TOKENS.isdisjoint(anchors[members[0]].tokens):
            continue
        current = next((int(anchors[i].text) for i in members if anchors[i].key == self_key), None)
        first, last = (page.node_first[group], page.node_last[group]) if group >= 0 else (0, 0)
        if current is None and 0 < last - first <= _PAGER_BLOCKS_PER_LINK * len(members) + _PAGER_EXTRA_BLOCKS:
            # The current page's number: in the pager's text but not linked ("1 2 3", 1 unlinked).
            shown = {int(n) for b in range(first, last) for n in _WORD_NUMBERS_RE.findall(page.texts[b])}
            current = min(shown.difference(numbers), default=None)
        if current is None:
            # The first number the pager skips (page 1 is the current one when "2 3 4" are linked);
            # none when it skips none. Counted up from 1: work in the links, not in their values.
            current = 1
            while current in numbers:
                current += 1
            if current > max(numbers):
                current = None
        if current is not None and current + 1 in numbers:
            found.add(numbers[current + 1])
    if url_patterns and self_key:
        own = PAGE_NUMBER_URL_RE.search(self_key)
        for i, a in enumerate(anchors):
            if a.key is None or a.key == self_key:
                continue
            m = PAGE_NUMBER_URL_RE.search(a.key)
            if m is None:
                continue
            if own is None:
                # Page 1 has no number in its URL: page 2 is the next one.
                if int(m.group(1)) == 2 and same_site(a.key, self_key):
                    found.add(i)
            elif int(m.group(1)) == int(own.group(1)) + 1 and a.key[: m.start()] == self_key[: own.start()]:
                found.add(i)
    return found


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


def _in_post_nav(page: Page, a: Anchor) -> bool:
    """Whether the link stands in a post's previous/next navigation: by its own or an inline
    ancestor's class names (``a.tokens``), or by a walked ancestor's (their words): a theme's
    ``<nav class="post-navigation">`` may hold ``pagination-item`` links to the next post."""
    if not POST_NAV_TOKENS.isdisjoint(a.tokens):
        return True
    node, parents, tokens = a.node, page.node_parents, page.node_tokens
    while node >= 0:
        if tokens[node] and any(words.issubset(tokens[node]) for words in _POST_NAV_WORDS):
            return True
        node = parents[node]
    return False


# --- the role --------------------------------------------------------------------------------


def _role(
    page: Page,
    a: Anchor,
    i: int,
    self_key: str | None,
    head_next: set[str],
    pager_next: set[int],
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
    if i in pager_next or ((direction > 0 or a.key in head_next) and (is_overview or continues(self_key, a.key))):
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
    if direction < 0 or _NUMBER_RE.match(a.text) or "tag" in a.rel or "author" in a.rel or "category" in a.rel:
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
