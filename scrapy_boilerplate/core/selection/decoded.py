"""The near-empty selection's second decode and the option steps right after the decoder
(steps.py runs them, in order, right after the decoder's steps)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..document.cue_words import key_bits
from ..document.elements import FLAG
from ..document.page import Page

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..options import Options

#: Pages with at most this much text keep all their non-link text when the model selects nothing.
SMALL_PAGE_CHARS = 1000
#: A selection of less than this share of the page's non-link text is decoded again, relaxed ...
TINY_SELECTION = 0.2
#: (fitted on the shipped model's out-of-fold probabilities, benchmarks/cv.py --replay: the
#: stacked model scores a near-empty page's content lower than the first stage alone did)
RELAXED_DECODE = {"threshold": 0.25, "min_probability": 0.1}
#: ... and the relaxed selection is kept when it holds at least this many times the text.
RELAXED_GAIN = 2


#: Caption-flagged blocks are dropped only while they are less than this share of the content.
CAPTION_MAX_SHARE = 0.5


def near_empty_fallback(page: Page, mask: np.ndarray, relaxed: Callable[[], np.ndarray]) -> np.ndarray:
    """The decoder's `mask` again where it kept next to nothing: a tiny page, a page of short
    items (`relaxed`: the decoder's steps again, with RELAXED_DECODE)."""
    chars, link_chars = page.arrays.chars, page.arrays.link_chars
    if not mask.any() and chars.sum() <= SMALL_PAGE_CHARS:
        # A tiny page has no boilerplate to speak of: its non-link text is the content,
        # or all its text when it is only links.
        mask = link_chars < chars / 2
        if not mask.any():
            mask = chars > 0
    elif chars[mask].sum() < TINY_SELECTION * np.maximum(chars - link_chars, 0).sum():
        # Little kept of a page with plenty of plain text: pages of short items (teasers,
        # cards, replies) score below the threshold one by one. A relaxed decode, kept when
        # it finds several times more (when it adds only a little, that is the page's
        # boilerplate around a selection that was right).
        again = relaxed()
        if chars[again].sum() > RELAXED_GAIN * chars[mask].sum():
            mask = again
    return mask


def drop_ad_links(page: Page, mask: np.ndarray) -> np.ndarray:
    """The text of an ad unit is its click-through link, even in the middle of an article: a block
    that is all link text, whose own element or its parent is named as an ad ("ad-text" in a
    `<div class="ad ad-in-article">`). Not a name inherited from further up: a page that wraps
    its feed in an "ads" container would lose its headlines (the inherited cue dropped the
    headlines of three cross-validation pages)."""
    flags, chars, link_chars = page.arrays.flags, page.arrays.chars, page.arrays.link_chars
    for i in np.flatnonzero(mask & ((flags & FLAG["ad"]) > 0) & (link_chars >= 0.9 * chars)):
        node = page.nodes[i]
        parent = page.node_parents[node] if node >= 0 else -1
        if (node >= 0 and _named_ad(page.node_tokens[node])) or (parent >= 0 and _named_ad(page.node_tokens[parent])):
            mask[i] = False
    return mask


def _named_ad(tokens: tuple[str, ...]) -> bool:
    """One of an element's own id/class words is an ad cue (the walk's own matcher, cue_words.key_bits)."""
    return any(key_bits(token) & FLAG["ad"] for token in tokens)


def drop_captions(page: Page, mask: np.ndarray, options: Options) -> np.ndarray:
    """Captions are not main content by default; include_captions keeps those within the content."""
    if mask.any():
        chars, flags = page.arrays.chars, page.arrays.flags
        span = np.zeros_like(mask)
        first, last = np.flatnonzero(mask)[[0, -1]]
        span[first : last + 1] = True
        captions = (flags & FLAG["caption"]) > 0
        if options.include_captions:
            mask = mask | (captions & span)
        elif chars[mask & captions].sum() < CAPTION_MAX_SHARE * chars[mask].sum():
            # Captions are not main content by default (all gold sets agree). When they
            # would be most of the content, the cue came from a wrapper ("caption-dark"
            # on <body>, a "tag-creditshelf" class), not from captions: keep it all.
            mask = mask & ~captions
    return mask


def add_comments(page: Page, mask: np.ndarray, options: Options) -> np.ndarray:
    """include_comments: the comment sections' blocks are content."""
    if options.include_comments:
        mask = mask | ((page.arrays.flags & FLAG["comment"]) > 0)
    return mask
