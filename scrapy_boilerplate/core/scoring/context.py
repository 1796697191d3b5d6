"""The second stage's inputs: each block's context read from the first stage's probabilities.

Stacking (auto-context): the block model scores blocks one by one; a second tree ensemble
then sees, beside a block's own features, what the first stage thinks of its neighbours, its
container and grandcontainer, its siblings of the same tag and id/class path, and where it
sits against the page's main run of likely content. So a one-link line between two article
paragraphs, or a caption under the last long paragraph, is judged with its surroundings
rather than by a hand-written step. Training feeds these from out-of-fold probabilities
(training/recipes.py), inference from the shipped first stage (model.py). Vectorised: a page of
3,000 blocks costs well under a millisecond per feature.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..document.page import Page

#: A block is "likely content" for the context counts from this first-stage probability.
HIGH = 0.5
#: Blocks of this many words or more are paragraphs (the page's median paragraph probability).
PARAGRAPH_WORDS = 10

CONTEXT_FEATURES = (
    "p",
    "p@-1",
    "p@+1",
    "p@-2",
    "p@+2",
    "win_mean",
    "par_mean",
    "par_max",
    "par_hi_share",
    "par_blocks",
    "par_word_share",
    "gpar_mean",
    "gpar_hi_share",
    "sib_mean",
    "sib_count",
    "run_inside",
    "run_before",
    "run_after",
    "run_share",
    "page_median_p",
    "page_mean_p",
    "words_vs_body",
    "hi_before",
    "hi_after",
)


@dataclass
class Structure:
    """What the context needs of a page's tree, without the tree: per block, the block span of
    its container and grandcontainer and a sibling key (tag and id/class path)."""

    words: np.ndarray
    parent_first: np.ndarray
    parent_last: np.ndarray
    grand_first: np.ndarray
    grand_last: np.ndarray
    sibling_key: np.ndarray  # int: blocks with the same tag and id/class path share it

    def __len__(self) -> int:
        return len(self.words)


def page_structure(page: Page) -> Structure:
    """The container spans and sibling keys of `page`'s blocks."""
    n = len(page.texts)
    arrays = page.arrays  # the columns the first stage's features already made into arrays
    nodes, parents, first, last = arrays.nodes, arrays.node_parents, arrays.node_first, arrays.node_last

    def span(owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ok = owner >= 0
        safe = np.where(ok, owner, 0)
        a = np.where(ok, first[safe] if len(first) else 0, 0)
        b = np.where(ok, last[safe] if len(last) else n, n)
        return a, b

    has_node = nodes >= 0
    parent = np.where(has_node, parents[np.where(has_node, nodes, 0)] if len(parents) else -1, -1)
    grand = np.where(parent >= 0, parents[np.where(parent >= 0, parent, 0)] if len(parents) else -1, -1)
    pa, pb = span(parent)
    ga, gb = span(grand)
    # a block always lies in its containers' spans (a walk's odd case must not empty one)
    idx = np.arange(n)
    pa, ga = np.minimum(pa, idx), np.minimum(ga, idx)
    pb, gb = np.maximum(pb, idx + 1), np.maximum(gb, idx + 1)
    keys: dict[tuple[str, tuple[str, ...]], int] = {}
    sibling = np.array([keys.setdefault(key, len(keys)) for key in zip(page.tags, page.tokens)], np.int64)
    return Structure(arrays.words, pa, pb, ga, gb, sibling)


def _span_sums(values: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    cum = np.concatenate(([0.0], np.cumsum(values)))
    sums: np.ndarray = cum[b] - cum[a]
    return sums


def _span_max(values: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """max(values[a:b]) per span (spans are never empty: a block lies in its own container)."""
    n = len(values) + 1
    keys, inverse = np.unique(a * n + b, return_inverse=True)  # one number per (a, b): 1-d unique is fast
    starts_ends = np.empty(2 * len(keys), np.int64)
    starts_ends[0::2], starts_ends[1::2] = keys // n, keys % n
    padded = np.append(values, 0.0)  # a span may end at len(values)
    maxima = np.maximum.reduceat(padded, starts_ends)[::2]
    return maxima[np.ravel(inverse)]


def context_features(proba: np.ndarray, s: Structure) -> np.ndarray:
    """One row per block, columns CONTEXT_FEATURES (all finite; -1 where a block has none)."""
    n = len(proba)
    out = np.zeros((n, len(CONTEXT_FEATURES)))
    if n == 0:
        return out
    p = np.asarray(proba, float)
    w = s.words + 1.0  # a block without words still counts a little
    hi = p >= HIGH
    col = {name: k for k, name in enumerate(CONTEXT_FEATURES)}
    out[:, col["p"]] = p
    for shift, name in ((1, "p@-1"), (-1, "p@+1"), (2, "p@-2"), (-2, "p@+2")):
        shifted = np.full(n, -1.0)
        if shift > 0:
            shifted[shift:] = p[:-shift]
        else:
            shifted[:shift] = p[-shift:]
        out[:, col[name]] = shifted
    # word-weighted mean of the three blocks either side (not the block itself)
    pw = p * w
    idx = np.arange(n)
    lo, up = np.maximum(idx - 3, 0), np.minimum(idx + 4, n)
    num = _span_sums(pw, lo, up) - pw
    den = _span_sums(w, lo, up) - w
    out[:, col["win_mean"]] = np.where(den > 0, num / np.maximum(den, 1e-9), -1.0)
    total_words = w.sum()
    par_w = _span_sums(w, s.parent_first, s.parent_last)
    out[:, col["par_mean"]] = _span_sums(pw, s.parent_first, s.parent_last) / par_w
    out[:, col["par_max"]] = _span_max(p, s.parent_first, s.parent_last)
    out[:, col["par_hi_share"]] = _span_sums(w * hi, s.parent_first, s.parent_last) / par_w
    out[:, col["par_blocks"]] = np.log1p(s.parent_last - s.parent_first)
    out[:, col["par_word_share"]] = par_w / total_words
    gpar_w = _span_sums(w, s.grand_first, s.grand_last)
    out[:, col["gpar_mean"]] = _span_sums(pw, s.grand_first, s.grand_last) / gpar_w
    out[:, col["gpar_hi_share"]] = _span_sums(w * hi, s.grand_first, s.grand_last) / gpar_w
    # siblings: the other blocks of the same tag and id/class path
    count = np.bincount(s.sibling_key, minlength=int(s.sibling_key.max()) + 1)[s.sibling_key]
    sums = np.bincount(s.sibling_key, weights=p)[s.sibling_key]
    out[:, col["sib_mean"]] = np.where(count > 1, (sums - p) / np.maximum(count - 1, 1), -1.0)
    out[:, col["sib_count"]] = np.log1p(count - 1)
    # the longest run (by words) of likely-content blocks
    padded = np.concatenate(([False], hi, [False]))
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    if len(edges):
        starts, ends = edges[::2], edges[1::2]
        mass = _span_sums(w, starts, ends)
        best = int(np.argmax(mass))
        a, b = int(starts[best]), int(ends[best])
        out[:, col["run_inside"]] = (idx >= a) & (idx < b)
        out[:, col["run_before"]] = np.log1p(np.maximum(a - idx, 0))
        out[:, col["run_after"]] = np.log1p(np.maximum(idx - (b - 1), 0))
        out[:, col["run_share"]] = mass[best] / total_words
    else:
        out[:, col["run_before"]] = -1.0
        out[:, col["run_after"]] = -1.0
    paragraphs = s.words >= PARAGRAPH_WORDS
    out[:, col["page_median_p"]] = float(np.median(p[paragraphs] if paragraphs.any() else p))
    out[:, col["page_mean_p"]] = float(pw.sum() / total_words)
    body = s.words[hi & paragraphs]
    median_body = float(np.median(body)) if len(body) else float(PARAGRAPH_WORDS)
    out[:, col["words_vs_body"]] = np.log((s.words + 1.0) / (median_body + 1.0))
    hi_words = np.cumsum(w * hi)
    hi_total = hi_words[-1]
    if hi_total > 0:
        out[:, col["hi_before"]] = (hi_words - w * hi) / hi_total
        out[:, col["hi_after"]] = (hi_total - hi_words) / hi_total
    else:
        out[:, col["hi_before"]] = -1.0
        out[:, col["hi_after"]] = -1.0
    return out
