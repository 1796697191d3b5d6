"""Turn block probabilities into one coherent selection of main content.

Authors write content contiguously (BoilerNet's point), so blocks are not
decided one by one: a two-state Viterbi pass over the log-odds makes
switching between content and boilerplate cost something, which fills short
gaps (a short sentence between paragraphs) and removes isolated false
positives (a lone teaser in the sidebar). Afterwards, each a step of its own in
selection/steps.py STEPS (in this order, so that the explain page and the
cross-validation's --eliminate see each): blocks the model is sure are
boilerplate are cut (min_probability), segments far smaller
than the main body are dropped unless close to it (bodies split by ad slots
are kept, stray widgets are not), in-body headings are kept, trailing
headings, link lists and end markers are trimmed, and a closing line just
under the threshold, in the container of the last kept block, is kept, as are
paragraphs just under it between kept blocks of one container and paragraphs
over it between kept blocks anywhere.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING

import numpy as np

from ..document.elements import HEADING_TAGS

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..document.page import Page
    from ..jsondata import JsonObject


@dataclass(frozen=True)
class DecoderParams:
    """The decoder's parameters: a model file's `decode` object, read by `of`."""

    threshold: float = 0.5  # probability at which a lone block switches to content
    switch_penalty: float = 2.0  # log-odds cost of entering or leaving content
    size_weight: float = 0.5  # how much longer blocks weigh in the Viterbi emissions
    min_segment_share: float = 0.15  # segments below this share of the main body's mass ...
    max_gap: float = 12  # ... are kept only within this many blocks of a kept one
    min_probability: float = 0.0  # blocks below this are never filled in as part of a content run

    @classmethod
    def of(cls, params: JsonObject | None) -> DecoderParams:
        """The defaults, with a model's `decode` values where it gives them (other keys, such as
        the overview model's `cutoff`, are not the decoder's)."""
        if not params:
            return DEFAULT_DECODER
        return cls(**{f.name: params[f.name] for f in fields(cls) if f.name in params})


DEFAULT_DECODER = DecoderParams()
#: The defaults as a model file's `decode` object (training starts its grids from it).
DEFAULT_PARAMS: dict[str, float] = asdict(DEFAULT_DECODER)

FAVOR_SHIFT = {"balanced": 0.0, "precision": 0.8, "recall": -0.8}
#: Blocks right after the content, in its container, are kept from this probability on.
TAIL_PROBABILITY = 0.5
#: Paragraphs in mid-body from this length on are filled in from TAIL_PROBABILITY.
GAP_MIN_CHARS = 80


def viterbi(log_odds: np.ndarray, switch_penalty: float) -> np.ndarray:
    """Best 0/1 labelling maximising sum(label * log_odds) - penalty * (number of switches)."""
    n = len(log_odds)
    if n == 0:
        return np.zeros(0, bool)
    # score[s] = best total ending in state s; back0/back1[i] = previous state
    # (Python lists and floats: numpy's per-item access would cost several times more)
    back0, back1 = [0] * n, [0] * n
    odds = log_odds.tolist()
    s0, s1 = 0.0, odds[0] - switch_penalty / 2  # start outside content
    for i in range(1, n):
        e = odds[i]
        from1 = s1 - switch_penalty
        from0 = s0 - switch_penalty
        if s0 >= from1:
            n0 = s0
        else:
            n0, back0[i] = from1, 1
        if s1 >= from0:
            n1, back1[i] = s1 + e, 1
        else:
            n1 = from0 + e
        s0, s1 = n0, n1
    labels = [False] * n
    state = 1 if s1 - switch_penalty / 2 > s0 else 0
    for i in range(n - 1, -1, -1):
        labels[i] = state == 1
        state = back1[i] if state else back0[i]
    return np.array(labels, bool)


def viterbi_mask(proba: np.ndarray, chars: np.ndarray, p: DecoderParams, favor: str = "balanced") -> np.ndarray:
    """The Viterbi pass over the blocks' log-odds, longer blocks weighed up."""
    if len(proba) == 0:
        return np.zeros(0, bool)
    eps = 1e-6
    prob = np.clip(proba, eps, 1 - eps)
    log_odds = np.log(prob / (1 - prob)) - np.log(p.threshold / (1 - p.threshold))
    log_odds -= FAVOR_SHIFT.get(favor, 0.0)
    # A long block's probability is evidence about more text: weigh it up a little.
    log_odds *= 1.0 + p.size_weight * np.log1p(chars / 100.0)
    return viterbi(log_odds, p.switch_penalty)


def cut_unlikely(mask: np.ndarray, proba: np.ndarray, min_probability: float) -> None:
    """Gap filling is for short sentences the model is unsure about, not for blocks it is sure
    are boilerplate ("Advertisement" inside the body): blocks under `min_probability` are out."""
    if min_probability > 0:
        mask &= proba >= min_probability


def segments(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) runs of True."""
    if not mask.any():
        return []
    padded = np.concatenate(([False], mask, [False]))
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    return list(zip(edges[::2].tolist(), edges[1::2].tolist()))


def drop_far_segments(
    mask: np.ndarray, chars: np.ndarray, min_share: float, max_gap: float, table_spans: Sequence[tuple[int, int]] = ()
) -> np.ndarray:
    """Segments far smaller than the main body are dropped unless close to it: a body split by
    an ad slot stays, a stray widget does not. `table_spans` are the [first, last) blocks of the
    page's data tables: each counts as one block in the distance between segments (a table of
    90 short cells is one thing between two parts of an article, not 90)."""
    runs = segments(mask)
    if len(runs) < 2:
        return mask
    distance = np.ones(len(mask))
    for first, last in table_spans:
        distance[first + 1 : last] = 0
    # Blocks before each block, as the gap counts them.
    before = np.concatenate(([0.0], np.cumsum(distance)))
    mass = [chars[a:b].sum() for a, b in runs]
    main = int(np.argmax(mass))
    keep = [False] * len(runs)
    keep[main] = True
    # Grow outwards from the main body: a segment stays if it is big enough,
    # or small but close to a kept one (a body split by an ad slot).
    for direction in (-1, 1):
        last = main
        i = main + direction
        while 0 <= i < len(runs):
            gap = (
                before[runs[i][0]] - before[runs[last][1]]
                if direction > 0
                else before[runs[last][0]] - before[runs[i][1]]
            )
            if mass[i] >= min_share * mass[main] or gap <= max_gap:
                keep[i] = True
                last = i
            i += direction
    out = np.zeros_like(mask)
    for (a, b), k in zip(runs, keep):
        if k:
            out[a:b] = True
    return out


def keep_headings(mask: np.ndarray, page: Page) -> None:
    """A subheading directly followed by content, inside the content span, is content."""
    if not mask.any():
        return
    first, last = np.flatnonzero(mask)[[0, -1]]
    tags = page.tags
    for i in range(first + 1, last):
        if (
            not mask[i]
            and tags[i] in ("h2", "h3", "h4", "h5", "h6")
            and mask[i + 1]
            and page.link_chars[i] < page.chars[i] / 2
        ):
            mask[i] = True


def extend_tail(mask: np.ndarray, proba: np.ndarray, page: Page) -> None:
    """Keep the blocks right after the last kept one, in the same container, that the model
    leans to (TAIL_PROBABILITY or more) and that are neither headings nor links: an article's
    closing line or sign-off ("x Franzi", a last short paragraph) scores just under the
    threshold, and at the end no content follows to carry it over the gap."""
    if not mask.any():
        return
    last = int(np.flatnonzero(mask)[-1])
    container = page.node_parents[page.nodes[last]]
    for i in range(last + 1, len(mask)):
        if page.node_parents[page.nodes[i]] != container or not _leans_to_text(proba, page, i):
            break
        mask[i] = True


def fill_body_gaps(mask: np.ndarray, proba: np.ndarray, page: Page, threshold: float) -> None:
    """Keep the paragraphs between kept blocks that the model leans to (TAIL_PROBABILITY or
    more), that hold GAP_MIN_CHARS or more and few links, and that sit in the container of
    the kept block before them: a run of them in mid-body, each just under the decoding
    threshold, costs the Viterbi pass more than two switches and was cut out of the article.
    A paragraph at or over the threshold is kept in any container: alone between unsure
    blocks (an API method's description between its parameter rows), the two switches it
    costs outweighed it; so is a one-block code listing at or over the threshold, however short
    (a few lines of <pre> between its file-name line and its caption)."""
    kept = np.flatnonzero(mask)
    if len(kept) < 2:
        return
    parents, nodes = page.node_parents, page.nodes
    before = -1  # the last block kept by the decoder so far
    for i in range(int(kept[0]), int(kept[-1])):
        if mask[i]:
            before = i
        elif _leans_to_text(proba, page, i) and (
            (proba[i] >= threshold and (page.chars[i] >= GAP_MIN_CHARS or page.tags[i] == "pre"))
            or (page.chars[i] >= GAP_MIN_CHARS and parents[nodes[i]] == parents[nodes[before]])
        ):
            mask[i] = True
            before = i


def _leans_to_text(proba: np.ndarray, page: Page, i: int) -> bool:
    """Block `i` is text the model leans to: TAIL_PROBABILITY or more, not a heading, few links."""
    return (
        proba[i] >= TAIL_PROBABILITY and page.tags[i] not in HEADING_TAGS and page.link_chars[i] < 0.5 * page.chars[i]
    )


def trim_tail(mask: np.ndarray, page: Page) -> None:
    """Drop trailing headings and link-only blocks at the end of the content; a selection made
    only of them (a list of link cards) has no tail: it is the content, and stays whole."""
    idx = np.flatnonzero(mask)
    for n, i in enumerate(idx[::-1]):
        heading = page.tags[i] in HEADING_TAGS
        link_only = page.link_chars[i] >= 0.8 * page.chars[i]
        if not ((heading or link_only) and page.chars[i] < 200):
            if n:
                mask[idx[len(idx) - n :]] = False
            return
