"""Label blocks by aligning the gold text to them.

A block is content when most of its word 4-grams (the metric's shingles)
occur in the gold text. Short blocks (headings, one-line paragraphs) have no
or few 4-grams, so for them the whole token sequence must occur in the gold
token stream, near where the neighbouring content blocks matched: that keeps
order in the picture, so a "Home" menu item is not labelled content just
because the word appears somewhere in the article.
"""

from __future__ import annotations

import re

import numpy as np

WORD_RE = re.compile(r"\w+")
N = 4


def _tokens(text: str) -> list[str]:
    return WORD_RE.findall(text.lower())


def block_coverage(block_texts: list[str], gold: str) -> np.ndarray:
    """Share (0..1) of each block's shingles (or, for short blocks, its token run) found in the gold."""
    gold_tokens = _tokens(gold)
    positions: dict[tuple[str, ...], int] = {}
    for i in range(len(gold_tokens) - N + 1):
        positions.setdefault(tuple(gold_tokens[i : i + N]), i)
    gold_joined = " " + " ".join(gold_tokens) + " "
    cover = np.zeros(len(block_texts))
    for b, text in enumerate(block_texts):
        toks = _tokens(text)
        if not toks:
            continue
        if len(toks) >= N + 1:
            grams = [tuple(toks[i : i + N]) for i in range(len(toks) - N + 1)]
            cover[b] = sum(g in positions for g in grams) / len(grams)
        else:
            cover[b] = float(" " + " ".join(toks) + " " in gold_joined)
    return cover


def block_labels(block_texts: list[str], gold: str, min_cover: float = 0.5) -> np.ndarray:
    """0/1 labels; short blocks count only when surrounded by matched content (order-aware)."""
    cover = block_coverage(block_texts, gold)
    long_block = np.array([len(_tokens(t)) >= N + 1 for t in block_texts], bool)
    labels = cover >= min_cover
    # A short block that matches somewhere in the gold is content only when a
    # long content block lies within 3 blocks on either side.
    strong = labels & long_block
    idx = np.flatnonzero(strong)
    for b in np.flatnonzero(labels & ~long_block):
        if not len(idx):
            labels[b] = False
            continue
        j = np.searchsorted(idx, b)
        near_prev = j > 0 and b - idx[j - 1] <= 3
        near_next = j < len(idx) and idx[j] - b <= 3
        labels[b] = near_prev or near_next
    return labels.astype(np.int8)


def _norm(text: str) -> str:
    return " ".join(text.split())


def snippet_labels(block_texts: list[str], with_: tuple[str, ...], without: tuple[str, ...]) -> np.ndarray:
    """Partial labels from snippets: 1 = holds (part of) a `with` snippet, 0 = a `without` one, -1 = unknown.

    For pages that have no gold text, only snippets that must / must not
    appear in the output (trafilatura's evaluation pages).
    """
    labels = np.full(len(block_texts), -1, np.int8)
    wanted = [_norm(s) for s in with_ if s.strip()]
    unwanted = [_norm(s) for s in without if s.strip()]
    for b, text in enumerate(block_texts):
        t = _norm(text)
        if len(t) < 3:
            continue
        if any(s in t or (len(t) >= 40 and t in s) for s in wanted):
            labels[b] = 1
        elif any(s in t or (len(t) >= 10 and t in s) for s in unwanted):
            labels[b] = 0
    return labels
