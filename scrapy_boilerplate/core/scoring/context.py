"""The second stage's inputs: each block's context read from the first stage's probabilities.

Stacking (auto-context): the block model scores blocks one by one; a second tree ensemble
then sees, beside a block's own features, what the first stage thinks of its neighbours, its
container and grandcontainer, its siblings of the same tag and id/class path, and where it
sits against the page's main run of likely content. So a one-link line between two article
paragraphs, or a caption under the last long paragraph, is judged with its surroundings
rather than by a hand-written step. Training feeds these from out-of-fold probabilities
(training/recipes.py), inference from the shipped first stage (model.py). The arithmetic is in
its kernel module, `_context` (compiled loops, or numpy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import speedups

if TYPE_CHECKING:
    from ..document.page import Page
    from . import _context

if not TYPE_CHECKING:
    _context = speedups.kernels(__name__)  # compiled, or the same source run as Python

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
    arrays = page.arrays  # the columns the first stage's features already made into arrays
    out = np.empty((5, len(page.texts)), np.intp)
    nodes = (arrays.nodes, arrays.node_parents, arrays.node_first, arrays.node_last)
    _context._structure(*nodes, page.tags, page.tokens, out)
    return Structure(arrays.words, *out)


def context_features(proba: np.ndarray, s: Structure, out: np.ndarray | None = None) -> np.ndarray:
    """One row per block, columns CONTEXT_FEATURES (all finite; -1 where a block has none),
    written into `out` when given (a float matrix of that shape, or a view of one)."""
    n = len(proba)
    if out is None:
        out = np.empty((n, len(CONTEXT_FEATURES)))
    if n:
        p = np.ascontiguousarray(proba, dtype=float)
        spans = (s.parent_first, s.parent_last, s.grand_first, s.grand_last, s.sibling_key)
        _context._context_rows(p, s.words, *spans, out, HIGH, PARAGRAPH_WORDS)
    return out
