"""A listing's cards are one decision, as a data table's rows are.

A product grid, a course catalogue or a list of linked names repeats one card
template: a linked headline and maybe a short text. The model sees each card
alone, finds it short and link-heavy, and drops the cards one by one, keeping
only the intro or the SEO text beside them. A group of sibling cards of one
template (same parent, tag and classes), next to the kept content and several
times longer than all the kept text outside it, is the page's content: it is
kept whole. Cards after an article (related stories) are shorter than the
article, so they stay out.
"""

from __future__ import annotations

import numpy as np

from .elements import FLAG

#: A group needs this many sibling cards ...
MIN_CARDS = 5
#: ... and this many times the kept text outside it (a listing, not a box beside an article).
DOMINANCE = 5
#: A group the selection already holds this much of is left to the model.
HELD_SHARE = 0.8
#: The group must start or end within this many blocks of the kept content.
NEAR_BLOCKS = 3
#: A card's headline: a link of at least this many characters among its first blocks.
HEADLINE_LINK_CHARS = 15
HEAD_BLOCKS = 8
_OUTSIDE_CONTENT = FLAG["nav"] | FLAG["footer"] | FLAG["header"] | FLAG["aside"]


def keep_card_groups(page, mask) -> None:
    """Set `mask` over every card of each dominant card group next to the kept content."""
    if not mask.any() or not page.node_first:
        return
    groups = _card_groups(page)
    if not groups:
        return
    chars = page.array("chars")
    # Prefix sums as lists: the loops below read single values, where numpy is slow.
    acc_chars = np.concatenate(([0], np.cumsum(chars))).tolist()
    acc_kept = np.concatenate(([0], np.cumsum(np.where(mask, chars, 0)))).tolist()
    for cards in groups:
        group_chars = sum(acc_chars[b] - acc_chars[a] for a, b in cards)
        held = sum(acc_kept[b] - acc_kept[a] for a, b in cards)
        outside = acc_kept[-1] - held
        # Kept text only inside the group: the model is deciding within it (a thread's posts).
        if outside <= 0 or held >= HELD_SHARE * group_chars or group_chars < DOMINANCE * outside:
            continue
        lo, hi = cards[0][0], cards[-1][1]
        if mask[max(0, lo - NEAR_BLOCKS):hi + NEAR_BLOCKS].any():
            for a, b in cards:
                mask[a:b] = True
            acc_kept = np.concatenate(([0], np.cumsum(np.where(mask, chars, 0)))).tolist()


def _card_groups(page) -> list:
    """The groups of MIN_CARDS or more sibling cards outside navigation, headers, footers and asides."""
    return [cards for cards in card_groups(page, _OUTSIDE_CONTENT).values() if len(cards) >= MIN_CARDS]


def card_groups(page, excluded_flags: int) -> dict:
    """{(parent node, tag, id/class tokens): [(first, last) block spans of its cards]}.

    A card is a node whose first HEAD_BLOCKS blocks hold a link of HEADLINE_LINK_CHARS or more
    (a linked headline), not a paragraph or table cell or row, and not under `excluded_flags`.
    Overview detection counts these groups too (overview.teaser_cards).
    """
    first, last = page.array("node_first", int), page.array("node_last", int)
    acc_links = np.concatenate(([0], np.cumsum(page.link_chars)))
    head_end = np.minimum(last, first + HEAD_BLOCKS)
    # Candidates in one vectorised pass; the Python loop sees only nodes with a headline link.
    candidates = np.flatnonzero(acc_links[head_end] - acc_links[first] >= HEADLINE_LINK_CHARS)
    groups: dict = {}
    link_chars, parents, tags, tokens, flags = (page.link_chars, page.node_parents, page.node_tags,
                                                 page.node_tokens, page.node_flags)
    node_first, node_last = page.node_first, page.node_last
    for node in candidates.tolist():
        start, stop = node_first[node], node_last[node]
        if (parents[node] < 0 or flags[node] & excluded_flags or tags[node] in ("p", "td", "tr")
                or max(link_chars[start:min(stop, start + HEAD_BLOCKS)]) < HEADLINE_LINK_CHARS):
            continue
        groups.setdefault((parents[node], tags[node], tokens[node]), []).append((start, stop))
    return groups
