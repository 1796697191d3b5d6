"""A listing's cards are one decision, as a data table's rows are.

A product grid, a course catalogue or a list of linked names repeats one card
template: a linked headline and maybe a short text. The model sees each card
alone, finds it short and link-heavy, and drops the cards one by one, keeping
only the intro or the SEO text beside them. A group of sibling cards of one
template (same parent, tag and classes), next to the kept content and several
times longer than all the kept text outside it, is the page's content: it is
kept whole. Cards after an article (related stories) are shorter than the
article, so they stay out.

A second pass, for groups of small cards only, takes short linked names as
headlines, keeps a group whose few kept cards are all the model kept, and
does not count navigation, headings and separators between the group and the
kept content. A page that states it is a discussion has posts, not cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..document.elements import FLAG
from ..metadata.article import declares_thread

if TYPE_CHECKING:
    from collections.abc import Iterable

    from numpy.typing import ArrayLike

    from ..document.page import Page, Tokens

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
#: Second pass: a shorter headline ("Bulova Sutton", a person's name) counts when it is a block
#: of this many link characters that are at least half its text (a prose paragraph with one
#: short inline link is not a headline).
SHORT_HEADLINE_LINK_CHARS = 5
#: The second pass is for groups of small cards (blocks per card, on average): the sections of
#: a long article or of documentation are not cards.
SMALL_CARD_BLOCKS = 20
#: A group holding all the kept text is kept whole when fewer than this share of its cards hold
#: kept text (the model kept a few cards of a grid), and its cards are this small. A forum
#: thread, whose posts the model keeps one by one, has kept text in most of them.
COVERED_SHARE = 0.5
COVERED_CARD_BLOCKS = 10
#: Separators ("|", "»", "·") of this many characters or less are not counted in the distance.
SEPARATOR_CHARS = 2
_OUTSIDE_CONTENT = FLAG["nav"] | FLAG["footer"] | FLAG["header"] | FLAG["aside"]
_NOT_COUNTED = FLAG["nav"] | FLAG["heading"]

#: A card: the [first, last) span of its blocks.
Span = tuple[int, int]
#: A group of sibling cards: (parent node, tag, id/class tokens).
CardKey = tuple[int, str, "Tokens"]


def keep_card_groups(page: Page, mask: np.ndarray) -> None:
    """Set `mask` over every card of each dominant card group next to the kept content; on a
    page where nothing is kept, over the cards of its largest group."""
    if not page.node_first:
        return
    groups = _card_groups(page)
    # A page that states it is a discussion (a forum thread, a Q&A page): its posts are not cards.
    if not groups or declares_thread(page):
        return
    chars = page.arrays.chars
    acc_chars = _prefix_sums(chars)
    if not mask.any():
        # Nothing kept of a page of cards (a shop's grid of short, linked product names, each
        # scored low): its cards are all it has to give, rather than nothing.
        largest = max((cards for cards, _ in groups), key=lambda cards: _spans_sum(acc_chars, cards))
        for a, b in largest:
            mask[a:b] = True
        return
    acc_kept = _prefix_sums(np.where(mask, chars, 0))
    # First pass: cards with a linked headline of HEADLINE_LINK_CHARS or more, in page order.
    for headlined in sorted((h for _, h in groups if len(h) >= MIN_CARDS), key=lambda h: h[0][0]):
        group_chars, held = _spans_sum(acc_chars, headlined), _spans_sum(acc_kept, headlined)
        outside = acc_kept[-1] - held
        # Kept text only inside the group: the model is deciding within it (a thread's posts).
        if outside <= 0 or held >= HELD_SHARE * group_chars or group_chars < DOMINANCE * outside:
            continue
        lo, hi = headlined[0][0], headlined[-1][1]
        if mask[max(0, lo - NEAR_BLOCKS) : hi + NEAR_BLOCKS].any():
            for a, b in headlined:
                mask[a:b] = True
            acc_kept = _prefix_sums(np.where(mask, chars, 0))
    # Second pass, groups of small cards: short linked headlines count, a group may hold all the
    # kept text, and navigation, headings and separators do not count in the distance.
    counted = None
    for cards, _ in groups:
        mean_blocks = sum(b - a for a, b in cards) / len(cards)
        if mean_blocks > SMALL_CARD_BLOCKS:
            continue
        group_chars, held = _spans_sum(acc_chars, cards), _spans_sum(acc_kept, cards)
        outside = acc_kept[-1] - held
        if held >= HELD_SHARE * group_chars:
            continue
        if outside <= 0:
            covered = sum(1 for a, b in cards if acc_kept[b] > acc_kept[a])
            if covered >= COVERED_SHARE * len(cards) or mean_blocks > COVERED_CARD_BLOCKS:
                continue
        elif group_chars < DOMINANCE * outside:
            continue
        if counted is None:
            counted = _counted_blocks(page)
        if _near(mask, cards[0][0], cards[-1][1], counted):
            for a, b in cards:
                mask[a:b] = True
            acc_kept = _prefix_sums(np.where(mask, chars, 0))


def _prefix_sums(values: ArrayLike) -> list[float]:
    """Prefix sums as a list: the loops of keep_card_groups read single values, where numpy is slow."""
    sums: list[float] = np.concatenate(([0], np.cumsum(values))).tolist()
    return sums


def _spans_sum(acc: list[float], spans: Iterable[Span]) -> float:
    """The sum over the [first, last) block spans, from prefix sums `acc`."""
    total: float = sum(acc[b] - acc[a] for a, b in spans)
    return total


def _counted_blocks(page: Page) -> np.ndarray:
    """Prefix sums of the blocks that count in the distance between a group and the kept
    content: not navigation, headings or separators of SEPARATOR_CHARS or less."""
    counts = (page.arrays.flags & _NOT_COUNTED == 0) & (page.arrays.chars > SEPARATOR_CHARS)
    return np.concatenate(([0], np.cumsum(counts)))


def _near(mask: np.ndarray, lo: int, hi: int, counted: np.ndarray) -> bool:
    """Whether kept content is inside blocks lo..hi-1 or fewer than NEAR_BLOCKS counted blocks away."""
    if mask[max(0, lo - NEAR_BLOCKS) : hi + NEAR_BLOCKS].any():
        return True
    kept = np.flatnonzero(mask)
    after = int(np.searchsorted(kept, hi))  # the first kept block at or after hi (none inside)
    if after > 0 and counted[lo] - counted[kept[after - 1] + 1] < NEAR_BLOCKS:
        return True
    return after < len(kept) and counted[kept[after]] - counted[hi] < NEAR_BLOCKS


def _card_groups(page: Page) -> list[tuple[list[Span], list[Span]]]:
    """(cards, the cards with a long linked headline) of each group of MIN_CARDS or more sibling
    cards outside navigation, headers, footers and asides, short linked headlines counted."""
    groups = [
        cards for cards in card_groups(page, _OUTSIDE_CONTENT, short_headlines=True).values() if len(cards) >= MIN_CARDS
    ]
    if not groups:
        return []
    acc_long = np.concatenate(([0], np.cumsum(page.arrays.link_chars >= HEADLINE_LINK_CHARS))).tolist()
    return [(cards, [(a, b) for a, b in cards if acc_long[min(b, a + HEAD_BLOCKS)] > acc_long[a]]) for cards in groups]


def card_groups(page: Page, excluded_flags: int, short_headlines: bool = False) -> dict[CardKey, list[Span]]:
    """{(parent node, tag, id/class tokens): [(first, last) block spans of its cards]}.

    A card is a node whose first HEAD_BLOCKS blocks hold a link of HEADLINE_LINK_CHARS or more
    (a linked headline), not a paragraph or table cell or row, and not under `excluded_flags`.
    With `short_headlines`, a block of SHORT_HEADLINE_LINK_CHARS or more link characters that
    are at least half its text is a headline too (the extraction's second pass). Overview
    detection counts the groups of long headlines (overview.teaser_cards, and its compiled twin).
    """
    first, last = page.arrays.node_first, page.arrays.node_last
    head_end = np.minimum(last, first + HEAD_BLOCKS)
    if short_headlines:
        links, chars = page.arrays.link_chars, page.arrays.chars
        headline = (links >= HEADLINE_LINK_CHARS) | ((links >= SHORT_HEADLINE_LINK_CHARS) & (2 * links >= chars))
        acc_headlines = np.concatenate(([0], np.cumsum(headline)))
        # Exact in one vectorised pass: a node is a candidate when a headline block starts it.
        candidates = np.flatnonzero(acc_headlines[head_end] > acc_headlines[first])
    else:
        acc_links = np.concatenate(([0], np.cumsum(page.link_chars)))
        # Candidates in one vectorised pass; the Python loop sees only nodes with a headline link.
        candidates = np.flatnonzero(acc_links[head_end] - acc_links[first] >= HEADLINE_LINK_CHARS)
    groups: dict[CardKey, list[Span]] = {}
    link_chars, parents, tags, tokens, flags = (
        page.link_chars,
        page.node_parents,
        page.node_tags,
        page.node_tokens,
        page.node_flags,
    )
    node_first, node_last = page.node_first, page.node_last
    for node in candidates.tolist():
        start, stop = node_first[node], node_last[node]
        if (
            parents[node] < 0
            or flags[node] & excluded_flags
            or tags[node] in ("p", "td", "tr")
            or (not short_headlines and max(link_chars[start : min(stop, start + HEAD_BLOCKS)]) < HEADLINE_LINK_CHARS)
        ):
            continue
        groups.setdefault((parents[node], tags[node], tokens[node]), []).append((start, stop))
    return groups
