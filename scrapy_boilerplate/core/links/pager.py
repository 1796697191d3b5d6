"""A page's pager: the links that lead to the next and the previous page, read from the page's anchors.

What says where a link leads (its rel, its words in many languages, an arrow, an icon's class
names), a numbered pager's next page and whether a page has a pager of its own: the evidence the
link roles (roles.py) and the overview detection (core/overview/) both read, kept here once.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..document.cues import unit_cues
from ..render.urls import page_base
from .anchors import page_anchors
from .urls import JUNK_URL, link_key, same_site, url_host, url_kind

if TYPE_CHECKING:
    from ..document.page import Page
    from .anchors import Anchor


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
# A page-number pattern of the URL: ".../page/3/", "/page3", "index3.html", "?page=3", "?p=3".
PAGE_NUMBER_URL_RE = re.compile(
    r"(?:(?<=/)page/?|(?<=/)index|[?&](?:page|paged|p|pg|start|offset)=)(\d{1,5})"
    r"(?=/?$|\.html?$|&|#)",
    re.IGNORECASE,
)
NUMBER_RE = re.compile(r"^\d{1,5}$")
# A pager's text is its numbers, an ellipsis, arrows and the current page: the current number is
# read from the text of a group of number links only when it holds at most this many blocks (on
# the twenty shared sites at most 2 more than its links); a larger group is a region that holds
# number links, whose other numbers are no page's.
_PAGER_BLOCKS_PER_LINK = 2
_PAGER_EXTRA_BLOCKS = 8
#: No "next" or "previous" link text is longer (with its arrows and spaces).
_LONGEST_DIRECTION = 40
_WORD_NUMBERS_RE = re.compile(r"(?<!\d)\d{1,5}(?!\d)")


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


def pager_next(page: Page, anchors: list[Anchor], self_key: str | None, url_patterns: bool) -> set[int]:
    """Indices of the anchors that are the next page by a numbered pager: the number after the
    current page's (the one not linked, or linked to the page itself), in the group of number
    links it stands in; with `url_patterns`, also the links whose URL is this page's with the
    page number plus one."""
    found: set[int] = set()
    groups: dict[int, list[int]] = {}
    for i, a in enumerate(anchors):
        if a.node >= 0 and NUMBER_RE.match(a.text):
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


def in_post_nav(page: Page, a: Anchor) -> bool:
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
    numbered = pager_next(page, anchors, self_key, False)
    host = url_host(self_key)
    for i, a in enumerate(anchors):
        if a.key is None or a.key == self_key or (host and url_host(a.key) != host) or url_kind(a.key) == JUNK_URL:
            continue
        if i in numbered:
            return True
        if (
            not STRICT_PAGER_TOKENS.isdisjoint(a.tokens)
            and not in_post_nav(page, a)
            and (NUMBER_RE.match(a.text) or link_direction(a))
        ):
            return True
    return False
