# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled tree-ensemble evaluation (see model.TreeEnsemble.raw_scores).

One row at a time, tree by tree: a handful of cache-friendly loads per
step instead of numpy's temporary arrays of (rows x trees) per level.
Same arithmetic as the numpy version: go right when x > threshold; leaves
point to themselves. Sums are taken tree by tree in order.
"""

import numpy as np


def raw_scores(const double[:, ::1] X, const Py_ssize_t[::1] feat, const double[::1] thr,
               const Py_ssize_t[::1] child, const double[::1] val, const Py_ssize_t[::1] roots,
               double baseline):
    cdef Py_ssize_t n = X.shape[0], n_trees = roots.shape[0], i, t
    cdef Py_ssize_t node, nxt
    cdef double total
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] res = out
    with nogil:
        for i in range(n):
            total = 0.0
            for t in range(n_trees):
                node = roots[t]
                while True:
                    nxt = child[node]
                    if nxt == node:
                        break
                    node = nxt + (X[i, feat[node]] > thr[node])
                total += val[node]
            res[i] = baseline + total
    return out
