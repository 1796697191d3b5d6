"""What a page's own links say of its type, in terms no theme names.

A listing leads to other pages of its site: its headings link to them (a tag page of one post has
one such heading, and the post's summary under it), sometimes with whole posts under them (a
monthly archive), and the pages it lists lie under its own path or have another URL shape than
its own (``/2009/04/`` lists ``/2009/04/22/slug/``; ``/tags/x/`` lists ``/posts/y/``). A post's
headings link nowhere or to itself (a permalink); the posts it links beside it (previous and
next, related) have its own URL shape. So, beside the rest of the page evidence (evidence.py),
these values read the page's anchors (core/links/anchors.py) and no class or id: a blog theme's
names hold on its own site and mislead on the next. Whether a page leads anywhere but to itself
and its home page at all (``leads_elsewhere``) is one of the detector's site signs.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..document.elements import FLAG, HEADING_TAGS
from ..links.anchors import Anchor, page_anchors
from ..links.pager import PAGE_NUMBER_URL_RE, link_direction
from ..links.urls import JUNK_URL, folder_of, is_home, link_key, url_host, url_kind, url_path, url_shape
from ..render.urls import page_base

if TYPE_CHECKING:
    from ..document.page import Page

#: The values, in the order the model reads them (evidence.FEATURE_NAMES ends with them).
LINK_FEATURES = (
    "heading_targets",
    "heading_same_shape",
    "same_shape_links",
    "same_shape_outside",
    "whole_posts",
    "linked_section_share",
    "first_heading_elsewhere",
    "next_same_shape",
    "next_numbered",
    "heading_self",
    "same_shape_share",
    "descendant_links",
    "heading_descendants",
)
# A site's chrome: links there (menus, footers, sidebars) are not the page's own. A header
# counts as the page's for its headings (a teaser card's title sits in its <header>).
_CHROME = FLAG["nav"] | FLAG["header"] | FLAG["footer"] | FLAG["aside"]
_CHROME_BUT_HEADER = FLAG["nav"] | FLAG["footer"] | FLAG["aside"]
#: Net characters under a linked heading that make it a whole post rather than a teaser.
WHOLE_POST_CHARS = 400
#: The most blocks of an element whose whole box a link covers (a teaser card).
CARD_BLOCKS = 32


def link_evidence(page: Page, url: str | None) -> dict[str, float]:
    """LINK_FEATURES of `page` at `url` (all 0 without a URL: the page's site is not known)."""
    values = dict.fromkeys(LINK_FEATURES, 0.0)
    self_key = link_key(url, None) if url else None
    if page.root is None or not self_key:
        return values
    host, own_shape, own_folder = url_host(self_key), url_shape(self_key), folder_of(self_key)
    heading_targets: set[str] = set()
    same_shape: set[str] = set()  # of the page's own links
    same_shape_outside: set[str] = set()  # of its chrome's
    site_links: set[str] = set()
    descendants: set[str] = set()
    heading_blocks: set[int] = set()  # the blocks of headings that link to another page
    tags = page.tags
    for a in page_anchors(page, page_base(url, page.base_href)):
        key = a.key
        if key is None:
            continue
        in_heading = a.block >= 0 and tags[a.block] in HEADING_TAGS
        if key == self_key:
            values["heading_self"] = values["heading_self"] or float(in_heading)
            continue
        if url_host(key) != host or is_home(key) or url_kind(key) == JUNK_URL:
            continue
        site_links.add(key)
        path = url_path(key)
        if own_folder not in (None, "/") and path.startswith(own_folder) and len(path) > len(own_folder):
            if not a.flags & _CHROME_BUT_HEADER:
                descendants.add(key)
        shape = url_shape(key)
        if shape == own_shape:
            (same_shape_outside if a.flags & _CHROME else same_shape).add(key)
        if not a.flags & _CHROME_BUT_HEADER:
            heading = a.block if in_heading else _covered_heading(page, a)
            if heading >= 0:
                heading_targets.add(key)
                heading_blocks.add(heading)
        if link_direction(a) > 0:
            if shape == own_shape:
                values["next_same_shape"] = 1.0
            if PAGE_NUMBER_URL_RE.search(key):
                values["next_numbered"] = 1.0
    values["heading_targets"] = math.log1p(len(heading_targets))
    values["heading_same_shape"] = math.log1p(sum(url_shape(k) == own_shape for k in heading_targets))
    values["same_shape_links"] = math.log1p(len(same_shape))
    values["same_shape_outside"] = math.log1p(len(same_shape_outside))
    values["same_shape_share"] = len(same_shape | same_shape_outside) / max(len(site_links), 1)
    values["descendant_links"] = math.log1p(len(descendants))
    values["heading_descendants"] = math.log1p(len(descendants & heading_targets))
    values.update(_sections(page, heading_blocks))
    return values


def _covered_heading(page: Page, a: Anchor) -> int:
    """The heading of the card an empty link covers (PaperMod's ``<a class="entry-link">``, the
    last child of a teaser whose title is no link): the one heading of the link's element, when that
    element is small (CARD_BLOCKS blocks at most); else -1."""
    if a.text.strip() or a.block >= 0 or a.node < 0:
        return -1
    first, last = page.node_first[a.node], page.node_last[a.node]
    if not 0 < last - first <= CARD_BLOCKS:
        return -1
    headings = [b for b in range(first, last) if page.tags[b] in HEADING_TAGS]
    return headings[0] if len(headings) == 1 and not page.link_chars[headings[0]] else -1


def _sections(page: Page, linked: set[int]) -> dict[str, float]:
    """The page's text by the headings over it (chrome left out): how many linked headings stand
    over a whole post (WHOLE_POST_CHARS of net text before the next heading), the share of the net
    text under linked headings, and whether the first h1-h3 heading links to another page. A
    section starts at a linked heading or an h2-h6 (an unlinked h1 is the page's own title)."""
    chars, link_chars, tags, flags = page.chars, page.link_chars, page.tags, page.flags
    whole = net_total = net_linked = section = 0
    under_linked, first = False, -1.0
    for b in range(len(page)):
        if flags[b] & _CHROME_BUT_HEADER:
            continue
        if b in linked or (tags[b] in HEADING_TAGS and tags[b] != "h1"):
            whole += under_linked and section >= WHOLE_POST_CHARS
            under_linked, section = b in linked, 0
            if first < 0 and tags[b] in ("h1", "h2", "h3"):
                first = float(b in linked)
            continue
        net = max(chars[b] - link_chars[b], 0)
        net_total += net
        if under_linked:
            section += net
            net_linked += net
    whole += under_linked and section >= WHOLE_POST_CHARS
    return {
        "whole_posts": float(whole),
        "linked_section_share": net_linked / max(net_total, 1),
        "first_heading_elsewhere": max(first, 0.0),
    }


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
