# cython: boundscheck=False, wraparound=False, annotation_typing=False
"""Tree-ensemble evaluation (model.TreeEnsemble.raw_scores): the sum of the leaf values over all
trees, for each row of features.

One source (Cython's pure-Python mode; the C types are in _model.pxd): compiled, a loop row by row,
four trees at a time, each walk advanced a fixed `steps` (leaves point to themselves with an
infinite threshold, so a finished walk stays put): no data-dependent branch, and four independent
chains of loads in flight instead of one. Run as Python, where that loop would be slow, numpy
advances all (row, tree) walks one level at a time. Same arithmetic both ways: go right when
x > threshold; the leaf values are added tree by tree in order (numpy sums them pairwise: the last
bits may differ).
"""

from __future__ import annotations

import numpy as np

try:
    import cython
except ModuleNotFoundError:  # run as Python, without Cython (core/_cython.py)
    from .. import _cython as cython  # type: ignore[no-redef]


def _raw_scores(
    X: np.ndarray,
    feat: np.ndarray,
    thr: np.ndarray,
    child: np.ndarray,
    val: np.ndarray,
    roots: np.ndarray,
    baseline: float,
    steps: int,
) -> np.ndarray:
    """The sums of leaf values, one per row of X (C-contiguous floats; finite: NaN goes left)."""
    if not cython.compiled:
        return raw_scores_numpy(X, feat, thr, child, val, roots, baseline, steps)
    n = X.shape[0]
    n_trees = roots.shape[0]
    out = np.empty(n, dtype=np.float64)
    res = out
    with cython.nogil:
        for i in range(n):
            x = cython.address(X[i, 0])
            total = 0.0
            t = 0
            while t + 4 <= n_trees:
                a, b, c, d = roots[t], roots[t + 1], roots[t + 2], roots[t + 3]
                for _step in range(steps):
                    a = child[a] + (x[feat[a]] > thr[a])
                    b = child[b] + (x[feat[b]] > thr[b])
                    c = child[c] + (x[feat[c]] > thr[c])
                    d = child[d] + (x[feat[d]] > thr[d])
                total += val[a]
                total += val[b]
                total += val[c]
                total += val[d]
                t += 4
            while t < n_trees:
                a = roots[t]
                for _step in range(steps):
                    a = child[a] + (x[feat[a]] > thr[a])
                total += val[a]
                t += 1
            res[i] = baseline + total
    return out


def raw_scores_numpy(
    X: np.ndarray,
    feat: np.ndarray,
    thr: np.ndarray,
    child: np.ndarray,
    val: np.ndarray,
    roots: np.ndarray,
    baseline: float,
    steps: int,
) -> np.ndarray:
    """The same sums in numpy alone: all (row, tree) walks advance one level at a time."""
    n = X.shape[0]
    flat = np.ascontiguousarray(X, dtype=float).ravel()
    offsets = (np.arange(n, dtype=np.intp) * X.shape[1])[:, None]
    node = np.broadcast_to(roots, (n, len(roots)))
    for _ in range(steps):
        node = child[node] + (flat[offsets + feat[node]] > thr[node])
    scores: np.ndarray = baseline + val[node].sum(axis=1)
    return scores
