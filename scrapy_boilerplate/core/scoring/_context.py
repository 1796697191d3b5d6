# cython: boundscheck=False, wraparound=False, initializedcheck=False, annotation_typing=False
"""The second stage's context (context.py): the blocks' containers, then their features.

One source (Cython's pure-Python mode; the C types are in _context.pxd): compiled, one pass per
kind of sum over the page's blocks; run as Python, where those loops would be slow, numpy
(`context_rows_numpy`), the features' reference. Same arithmetic both ways, so the second stage
sees the same numbers: span sums are differences of running sums (numpy's cumsum adds in order
too), the page's totals and medians are numpy's own (its sum adds pairwise), a container's
maximum is read from a sparse table (max is exact, and a page's cost stays n log n), and the
logarithms are numpy's (its vectorised log may differ from C's in the last bit).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..document.page import Tokens

try:
    import cython
except ModuleNotFoundError:  # run as Python, without Cython (core/_cython.py)
    from .. import _cython as cython  # type: ignore[no-redef]


def _median(values: np.ndarray) -> float:
    """np.median of a non-empty array, without its Python overhead: the middle of the sorted
    values, or the mean of the two middle ones (a + b) / 2, as np.median takes it."""
    ordered = np.sort(values)
    k = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[k])
    return float((ordered[k - 1] + ordered[k]) / 2)


def _context_rows(
    p: np.ndarray,
    words: np.ndarray,
    parent_first: np.ndarray,
    parent_last: np.ndarray,
    grand_first: np.ndarray,
    grand_last: np.ndarray,
    sibling_key: np.ndarray,
    out: np.ndarray,
    high: float,
    paragraph_words: float,
) -> None:
    """Write the context features of each block into its row of `out` (n x 24, the columns of
    context.CONTEXT_FEATURES in order). A block is likely content from probability `high`, a
    paragraph from `paragraph_words` words."""
    if not cython.compiled:
        args = (parent_first, parent_last, grand_first, grand_last, sibling_key)
        context_rows_numpy(p, words, *args, out, high, paragraph_words)
        return
    n = p.shape[0]
    # Running sums (entry i: the sum of the first i blocks) of words, probability x words and
    # the words of likely blocks; then the page's words and mass (numpy's pairwise sums).
    sums = np.zeros((3, n + 1))
    scratch = np.empty((2, n))  # each block's words + 1 and probability x that
    _running_sums(p, words, high, sums, scratch)
    cum_w, cum_pw, cum_hi = sums[0], sums[1], sums[2]
    w, pw = scratch[0], scratch[1]
    total_words = float(scratch[0].sum())
    page_mean_p = float(scratch[1].sum()) / total_words
    page_median_p, median_body = _medians(p, words, high, paragraph_words)
    top = _max_table(p)
    keyed = _sibling_sums(p, sibling_key)
    sib_count, sib_sum = keyed[0], keyed[1]
    run_a, run_b, best = _heaviest_run(p, cum_w, high)
    hi_total = cum_hi[n]
    res = out
    # the arguments of the five logarithms, taken by numpy after the loop
    logs = np.zeros((5, n))
    log_of = logs
    for i in range(n):
        res[i, 0] = p[i]
        res[i, 1] = p[i - 1] if i >= 1 else -1.0
        res[i, 2] = p[i + 1] if i + 1 < n else -1.0
        res[i, 3] = p[i - 2] if i >= 2 else -1.0
        res[i, 4] = p[i + 2] if i + 2 < n else -1.0
        # word-weighted mean of the three blocks either side (not the block itself)
        lo = i - 3 if i >= 3 else 0
        up = i + 4 if i + 4 <= n else n
        num = (cum_pw[up] - cum_pw[lo]) - pw[i]
        den = (cum_w[up] - cum_w[lo]) - w[i]
        res[i, 5] = num / (den if den > 1e-9 else 1e-9) if den > 0 else -1.0
        a, b = parent_first[i], parent_last[i]
        span_w = cum_w[b] - cum_w[a]
        res[i, 6] = (cum_pw[b] - cum_pw[a]) / span_w
        level = 0
        while (2 << level) <= b - a:
            level += 1
        k = b - (1 << level)
        left, right = top[level, a], top[level, k]
        res[i, 7] = left if left >= right else right
        res[i, 8] = (cum_hi[b] - cum_hi[a]) / span_w
        log_of[0, i] = b - a
        res[i, 10] = span_w / total_words
        a, b = grand_first[i], grand_last[i]
        span_w = cum_w[b] - cum_w[a]
        res[i, 11] = (cum_pw[b] - cum_pw[a]) / span_w
        res[i, 12] = (cum_hi[b] - cum_hi[a]) / span_w
        k = sibling_key[i]
        res[i, 13] = (sib_sum[k] - p[i]) / (sib_count[k] - 1.0) if sib_count[k] > 1.0 else -1.0
        log_of[1, i] = sib_count[k] - 1.0
        if run_a >= 0:
            res[i, 15] = 1.0 if run_a <= i < run_b else 0.0
            log_of[2, i] = run_a - i if run_a > i else 0
            log_of[3, i] = i - (run_b - 1) if i > run_b - 1 else 0
            res[i, 18] = best / total_words
        else:
            res[i, 15] = 0.0
            res[i, 18] = 0.0
        res[i, 19] = page_median_p
        res[i, 20] = page_mean_p
        log_of[4, i] = (words[i] + 1.0) / (median_body + 1.0)
        if hi_total > 0:
            res[i, 22] = (cum_hi[i + 1] - (w[i] if p[i] >= high else 0.0)) / hi_total
            res[i, 23] = (hi_total - cum_hi[i + 1]) / hi_total
        else:
            res[i, 22] = -1.0
            res[i, 23] = -1.0
    np.log1p(logs[:4], out=logs[:4])
    np.log(logs[4], out=logs[4])
    out[:, 9] = logs[0]
    out[:, 14] = logs[1]
    if run_a >= 0:
        out[:, 16] = logs[2]
        out[:, 17] = logs[3]
    else:
        out[:, 16] = -1.0
        out[:, 17] = -1.0
    out[:, 21] = logs[4]


def _running_sums(p: np.ndarray, words: np.ndarray, high: float, sums: np.ndarray, scratch: np.ndarray) -> None:
    """Into the rows of `sums` (3 x n + 1, zeros): the running sums of words + 1, of probability
    x that, of the likely blocks' words + 1; into `scratch` (2 x n) the first two per block."""
    n = p.shape[0]
    cum_w, cum_pw, cum_hi = sums[0], sums[1], sums[2]
    w, pw = scratch[0], scratch[1]
    for i in range(n):
        w[i] = words[i] + 1.0  # a block without words still counts a little
        pw[i] = p[i] * w[i]
        cum_w[i + 1] = cum_w[i] + w[i]
        cum_pw[i + 1] = cum_pw[i] + pw[i]
        cum_hi[i + 1] = cum_hi[i] + (w[i] if p[i] >= high else 0.0)


def _medians(p: np.ndarray, words: np.ndarray, high: float, paragraph_words: float) -> tuple[float, float]:
    """The page's median probability of its paragraphs (of all its blocks without one), and the
    median words of its likely paragraphs (`paragraph_words` without one)."""
    n = p.shape[0]
    chosen = np.empty(n)
    picked = chosen
    m = 0
    for i in range(n):
        if words[i] >= paragraph_words:
            picked[m] = p[i]
            m += 1
    median_p = _median(chosen[:m]) if m else _median(np.asarray(p))
    m = 0
    for i in range(n):
        if words[i] >= paragraph_words and p[i] >= high:
            picked[m] = words[i]
            m += 1
    return median_p, (_median(chosen[:m]) if m else paragraph_words)


def _max_table(p: np.ndarray) -> np.ndarray:
    """A sparse table of maxima: row `level` holds max(p[i : i + 2**level])."""
    n = p.shape[0]
    levels = 1
    while (1 << levels) <= n:
        levels += 1
    table = np.empty((levels, n))
    top = table
    for i in range(n):
        top[0, i] = p[i]
    for level in range(1, levels):
        half = 1 << (level - 1)
        for i in range(n - (1 << level) + 1):
            left, right = top[level - 1, i], top[level - 1, i + half]
            top[level, i] = left if left >= right else right
    return table


def _sibling_sums(p: np.ndarray, sibling_key: np.ndarray) -> np.ndarray:
    """Per sibling key: how many blocks have it, and the sum of their probabilities (2 rows)."""
    n = p.shape[0]
    n_keys = 0
    for i in range(n):
        if sibling_key[i] >= n_keys:
            n_keys = sibling_key[i] + 1
    keyed = np.zeros((2, n_keys))
    count, total = keyed[0], keyed[1]
    for i in range(n):
        count[sibling_key[i]] += 1.0
        total[sibling_key[i]] += p[i]
    return keyed


def _heaviest_run(p: np.ndarray, cum_w: np.ndarray, high: float) -> tuple[int, int, float]:
    """(first, last + 1, words) of the longest run by words of likely blocks (the first of the
    heaviest; -1, -1, 0 without one)."""
    n = p.shape[0]
    run_a = run_b = -1
    best = 0.0
    i = 0
    while i < n:
        if p[i] < high:
            i += 1
            continue
        j = i
        while j < n and p[j] >= high:
            j += 1
        if run_a < 0 or cum_w[j] - cum_w[i] > best:
            run_a, run_b, best = i, j, cum_w[j] - cum_w[i]
        i = j
    return run_a, run_b, best


def _structure(
    nodes: np.ndarray,
    parents: np.ndarray,
    first: np.ndarray,
    last: np.ndarray,
    tags: Sequence[str],
    tokens: Sequence[Tokens],
    out: np.ndarray,
) -> None:
    """Write the blocks' container spans and sibling keys into the rows of `out` (5 x n integers):
    the first and last + 1 block of each block's parent node, of its grandparent (the whole page
    for a block without one; always holding the block), and its key (blocks of the same tag and
    id/class path share one: 0, 1, ... in order of first appearance). `nodes`: each block's node,
    or -1; `parents`, `first`, `last`: each node's parent and block span (a span outside the
    page is cut to it: an odd walk must not send the features' sums out of their arrays)."""
    if not cython.compiled:
        structure_numpy(nodes, parents, first, last, tags, tokens, out)
        return
    n = nodes.shape[0]
    n_nodes = parents.shape[0]
    res = out
    for i in range(n):
        owner = nodes[i]
        for level in range(2):  # the parent, then the grandparent
            owner = parents[owner] if 0 <= owner < n_nodes else -1
            a, b = 0, n
            if 0 <= owner < n_nodes:
                a, b = first[owner], last[owner]
            # a block always lies in its containers' spans, and they in the page
            res[2 * level, i] = i if a > i else (a if a > 0 else 0)
            res[2 * level + 1, i] = i + 1 if b < i + 1 else (b if b < n else n)
    keys: dict[tuple[str, Tokens], int] = {}
    for i in range(n):
        key = (tags[i], tokens[i])
        found = keys.get(key)
        if found is None:
            found = keys[key] = len(keys)
        res[4, i] = found


def structure_numpy(
    nodes: np.ndarray,
    parents: np.ndarray,
    first: np.ndarray,
    last: np.ndarray,
    tags: Sequence[str],
    tokens: Sequence[Tokens],
    out: np.ndarray,
) -> None:
    """`_structure` in numpy alone, compiled or not (what the Python code runs)."""
    n = len(nodes)

    def span(owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ok = owner >= 0
        safe = np.where(ok, owner, 0)
        a = np.where(ok, first[safe] if len(first) else 0, 0)
        b = np.where(ok, last[safe] if len(last) else n, n)
        return a, b

    has_node = nodes >= 0
    parent = np.where(has_node, parents[np.where(has_node, nodes, 0)] if len(parents) else -1, -1)
    grand = np.where(parent >= 0, parents[np.where(parent >= 0, parent, 0)] if len(parents) else -1, -1)
    idx = np.arange(n)
    for level, owner in enumerate((parent, grand)):
        a, b = span(owner)
        # a block always lies in its containers' spans, and they in the page
        out[2 * level] = np.clip(a, 0, idx)
        out[2 * level + 1] = np.clip(b, idx + 1, n)
    keys: dict[tuple[str, Tokens], int] = {}
    out[4] = [keys.setdefault(key, len(keys)) for key in zip(tags, tokens)]


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


def context_rows_numpy(
    p: np.ndarray,
    words: np.ndarray,
    parent_first: np.ndarray,
    parent_last: np.ndarray,
    grand_first: np.ndarray,
    grand_last: np.ndarray,
    sibling_key: np.ndarray,
    out: np.ndarray,
    high: float,
    paragraph_words: float,
) -> None:
    """`_context_rows` in numpy alone, compiled or not (what the Python code runs)."""
    n = len(p)
    w = words + 1.0  # a block without words still counts a little
    hi = p >= high
    out[:, 0] = p
    for shift, column in ((1, 1), (-1, 2), (2, 3), (-2, 4)):
        shifted = np.full(n, -1.0)
        if shift > 0:
            shifted[shift:] = p[:-shift]
        else:
            shifted[:shift] = p[-shift:]
        out[:, column] = shifted
    # word-weighted mean of the three blocks either side (not the block itself)
    pw = p * w
    idx = np.arange(n)
    lo, up = np.maximum(idx - 3, 0), np.minimum(idx + 4, n)
    num = _span_sums(pw, lo, up) - pw
    den = _span_sums(w, lo, up) - w
    out[:, 5] = np.where(den > 0, num / np.maximum(den, 1e-9), -1.0)
    total_words = w.sum()
    par_w = _span_sums(w, parent_first, parent_last)
    out[:, 6] = _span_sums(pw, parent_first, parent_last) / par_w
    out[:, 7] = _span_max(p, parent_first, parent_last)
    out[:, 8] = _span_sums(w * hi, parent_first, parent_last) / par_w
    out[:, 9] = np.log1p(parent_last - parent_first)
    out[:, 10] = par_w / total_words
    gpar_w = _span_sums(w, grand_first, grand_last)
    out[:, 11] = _span_sums(pw, grand_first, grand_last) / gpar_w
    out[:, 12] = _span_sums(w * hi, grand_first, grand_last) / gpar_w
    count = np.bincount(sibling_key, minlength=int(sibling_key.max()) + 1)[sibling_key]
    sums = np.bincount(sibling_key, weights=p)[sibling_key]
    out[:, 13] = np.where(count > 1, (sums - p) / np.maximum(count - 1, 1), -1.0)
    out[:, 14] = np.log1p(count - 1)
    # the longest run (by words) of likely-content blocks
    padded = np.concatenate(([False], hi, [False]))
    edges = np.flatnonzero(padded[1:] != padded[: n + 1])
    if len(edges):
        starts, ends = edges[::2], edges[1::2]
        mass = _span_sums(w, starts, ends)
        best = int(np.argmax(mass))
        a, b = int(starts[best]), int(ends[best])
        out[:, 15] = (idx >= a) & (idx < b)
        out[:, 16] = np.log1p(np.maximum(a - idx, 0))
        out[:, 17] = np.log1p(np.maximum(idx - (b - 1), 0))
        out[:, 18] = mass[best] / total_words
    else:
        out[:, 15] = 0.0
        out[:, 16] = -1.0
        out[:, 17] = -1.0
        out[:, 18] = 0.0
    paragraphs = words >= paragraph_words
    out[:, 19] = float(np.median(p[paragraphs] if paragraphs.any() else p))
    out[:, 20] = float(pw.sum() / total_words)
    body = words[hi & paragraphs]
    median_body = float(np.median(body)) if len(body) else float(paragraph_words)
    out[:, 21] = np.log((words + 1.0) / (median_body + 1.0))
    hi_words = np.cumsum(w * hi)
    hi_total = hi_words[n - 1]
    if hi_total > 0:
        out[:, 22] = (hi_words - w * hi) / hi_total
        out[:, 23] = (hi_total - hi_words) / hi_total
    else:
        out[:, 22] = -1.0
        out[:, 23] = -1.0
