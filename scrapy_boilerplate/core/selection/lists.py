"""A list of alike items is one unit inside the kept content, as a data table is.

The block model sees each list item alone: in a list of short items (a
checklist, the states of a programme, a top-10) it keeps some and drops
others whose probabilities fall just under the threshold, cutting the list in
the middle ("1-3 and 9-10 kept, 4-8 dropped"). When the model kept items on
both sides, the reader's list runs on through the dropped ones: the items
between the first and the last kept item are kept.

Only where the items are alike (short, of similar length) and the list is
not a list of links: a list of links in the body (deal links, "related"
lists inside a post) stays a judgement of its own, item by item, and a list
of long items (forum posts, comment threads, news streams) is a sequence of
separate pieces, not one unit.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..document.page import Page

LIST_TAGS = frozenset(("ul", "ol"))
#: Items this long on average (characters) are pieces of their own, not a list's items.
MAX_MEAN_ITEM_CHARS = 200
#: A list whose items are this share of link text or more is a list of links.
MAX_LINK_SHARE = 0.5
#: Alike items: the longest dropped item is at most this many times the longest kept one.
ALIKE_RATIO = 3
#: A definition list dropped between kept blocks is kept when its text is this likely content on
#: average (the model's probabilities, weighted by characters): the pros and cons of a review
#: (p .41-.68) are, a forum post's "Joined / Messages" box (p .05-.35) is not.
DL_MIN_PROBABILITY = 0.4


def fill_list_gaps(page: Page, mask: np.ndarray) -> None:
    """Keep the items between the first and the last kept item of a list of alike items (in place)."""
    tags, parents = page.node_tags, page.node_parents
    first, last = page.node_first, page.node_last
    kept_blocks = np.flatnonzero(mask)
    if kept_blocks.size < 2:
        return
    # Only items within the kept span can be a gap or the kept items around one: the nodes from
    # the outermost item holding the first kept block to the last node starting at or before the
    # last kept block (nodes are in document order, their first blocks never decrease).
    start = bisect_left(first, int(kept_blocks[0]))
    node = page.nodes[int(kept_blocks[0])]
    while node >= 0:
        if tags[node] == "li":
            start = min(start, node)
        node = parents[node]
    stop = bisect_right(first, int(kept_blocks[-1]))
    items: dict[int, list[int]] = {}
    at = start - 1
    while True:
        try:
            at = tags.index("li", at + 1, stop)
        except ValueError:
            break
        parent = parents[at]
        if parent >= 0 and tags[parent] in LIST_TAGS and last[at] > first[at]:
            items.setdefault(parent, []).append(at)
    if not items:
        return
    # Kept blocks before each block: an item's kept blocks without a numpy call per item.
    before = np.concatenate(([0], np.cumsum(mask))).tolist()
    chars, links = page.node_chars, page.node_link_chars
    for parent, children in items.items():
        kept = [before[last[c]] > before[first[c]] for c in children]
        if kept.count(True) < 2 or all(kept):
            continue
        # A list with a gap in the kept span: judged on all its items.
        children = _items(page, parent)
        if len(children) < 3:
            continue
        kept = [before[last[c]] > before[first[c]] for c in children]
        lo = kept.index(True)
        hi = len(kept) - 1 - kept[::-1].index(True)
        gap = [c for c, k in zip(children[lo:hi], kept[lo:hi]) if not k]
        if not gap:
            continue
        total = sum(chars[c] for c in children)
        if total == 0 or total > MAX_MEAN_ITEM_CHARS * len(children):
            continue
        if sum(links[c] for c in children) >= MAX_LINK_SHARE * total:
            continue
        longest_kept = max(chars[c] for c, k in zip(children, kept) if k)
        if max(chars[c] for c in gap) > ALIKE_RATIO * max(longest_kept, 20):
            continue
        for c in gap:
            mask[first[c] : last[c]] = True


def _items(page: Page, parent: int) -> list[int]:
    """The non-empty <li> children of list node `parent`."""
    tags, parents, first, last = page.node_tags, page.node_parents, page.node_first, page.node_last
    stop = bisect_left(first, last[parent], parent + 1)
    out: list[int] = []
    at = parent
    while True:
        try:
            at = tags.index("li", at + 1, stop)
        except ValueError:
            return out
        if parents[at] == parent and last[at] > first[at]:
            out.append(at)


def fill_definition_list_gaps(page: Page, mask: np.ndarray, proba: np.ndarray) -> None:
    """Keep a run of dropped blocks between two kept blocks that is all definition lists (in
    place), when its text is DL_MIN_PROBABILITY likely content on average and not mostly links
    (a service page's cards: "Learn more about ...")."""
    tags = page.node_tags
    if "dl" not in tags:
        return
    in_dl = np.zeros(len(mask), bool)
    at = -1
    while True:
        try:
            at = tags.index("dl", at + 1)
        except ValueError:
            break
        in_dl[page.node_first[at] : page.node_last[at]] = True
    kept = np.flatnonzero(mask)
    chars, links = page.arrays.chars, page.arrays.link_chars
    for before, after in pairwise(kept):
        a, b = before + 1, after
        if a >= b or not in_dl[a:b].all():
            continue
        weight = chars[a:b].sum()
        if (
            weight
            and links[a:b].sum() < MAX_LINK_SHARE * weight
            and (chars[a:b] * proba[a:b]).sum() >= DL_MIN_PROBABILITY * weight
        ):
            mask[a:b] = True
