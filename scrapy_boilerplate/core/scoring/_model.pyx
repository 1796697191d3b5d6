# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled twin of model.py: tree-ensemble evaluation (model._raw_scores).

Row by row, four trees at a time, each walk advanced a fixed `depth` steps
(leaves point to themselves with an infinite threshold, so a finished walk
stays put): no data-dependent branch, and four independent chains of loads
in flight instead of one. Same arithmetic as the numpy version: go right
when x > threshold; the leaf values are added tree by tree in order.
"""

import numpy as np


def _raw_scores(const double[:, ::1] X, const Py_ssize_t[::1] feat, const double[::1] thr,
                const Py_ssize_t[::1] child, const double[::1] val, const Py_ssize_t[::1] roots,
                double baseline, int depth):
    cdef Py_ssize_t n = X.shape[0], n_trees = roots.shape[0], i, t, a, b, c, d
    cdef const double* x
    cdef int step
    cdef double total
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] res = out
    with nogil:
        for i in range(n):
            x = &X[i, 0]
            total = 0.0
            t = 0
            while t + 4 <= n_trees:
                a, b, c, d = roots[t], roots[t + 1], roots[t + 2], roots[t + 3]
                for step in range(depth):
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
                for step in range(depth):
                    a = child[a] + (x[feat[a]] > thr[a])
                total += val[a]
                t += 1
            res[i] = baseline + total
    return out
