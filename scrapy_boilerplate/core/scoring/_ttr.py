# cython: boundscheck=False, wraparound=False
# (No cdivision: with it, `/` of two C integers would be C's integer division, not Python's.)
"""TextSweeper's region (ttr.best_region): one loop over the page's nodes.

One source, compiled by Cython (pure-Python mode: the `cython` annotations type the locals) where
the package was built with a C compiler, and run as Python where it was not. It must give the very
same region (the shipped models were trained on it). It takes the page's columns, not the Page.
"""

from __future__ import annotations

try:
    import cython
except ModuleNotFoundError:  # run as Python, without Cython (core/_cython.py)
    from .. import _cython as cython  # type: ignore[no-redef]


def _best_region(
    node_chars: list[int],
    node_link_chars: list[int],
    node_tag_counts: list[int],
    node_depths: list[int],
    node_parents: list[int],
    chars: list[int],
    link_chars: list[int],
    tolerance: cython.double,
) -> tuple[int, int]:
    """(The region's node or -1, its net text length): the common ancestor of every node whose
    ratio, net text length / (tag count + node level), is within `tolerance` of the best one.
    Only nodes with at least 25 characters of net text take part (their ratio is 0 otherwise)."""
    n: cython.Py_ssize_t = len(node_chars)
    i: cython.Py_ssize_t
    first: cython.Py_ssize_t = -1
    last: cython.Py_ssize_t = -1
    a: cython.Py_ssize_t
    b: cython.Py_ssize_t
    net: cython.Py_ssize_t
    links: cython.Py_ssize_t
    tags: cython.Py_ssize_t
    depth: cython.Py_ssize_t
    total: cython.Py_ssize_t = 0
    ratio: cython.double
    best: cython.double = 0.0
    cut: cython.double
    # Two passes, each ratio computed twice: no array of ratios to allocate.
    for i in range(n):
        net = node_chars[i]
        links = node_link_chars[i]
        net -= links
        if net >= 25:
            tags = node_tag_counts[i]
            depth = node_depths[i]
            ratio = net / (tags + depth)  # (a float; the counts are exact as floats)
            if ratio > best:
                best = ratio
    if not best > 0:
        return -1, 0
    cut = tolerance * best
    for i in range(n):
        net = node_chars[i]
        links = node_link_chars[i]
        net -= links
        ratio = 0.0
        if net >= 25:
            tags = node_tag_counts[i]
            depth = node_depths[i]
            ratio = net / (tags + depth)  # (a float; the counts are exact as floats)
        if ratio >= cut:  # (a ratio of 0 too, with a tolerance of 0)
            if first < 0:
                first = i
            last = i
    # The common ancestor of the first and the last chosen node (nodes are in pre-order, so
    # it is every chosen node's): climb from the later one until the two meet.
    a, b = first, last
    while a != b and a >= 0 and b >= 0:
        if a > b:  # a parent comes before its children: the later node is not the ancestor
            a = node_parents[a]
        else:
            b = node_parents[b]
    if a < 0 or b < 0:
        for i in range(len(chars)):
            net = chars[i]
            links = link_chars[i]
            total += net - links
        return -1, total
    net = node_chars[a]
    links = node_link_chars[a]
    return a, net - links
