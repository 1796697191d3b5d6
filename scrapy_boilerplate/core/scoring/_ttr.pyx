# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled twin of ttr.py: TextSweeper's region (ttr._best_region).

It must give the very same region (the shipped models were trained on it): one
typed loop over the page's nodes, where the twin makes numpy calls on small
arrays (converting the page's lists first). It takes the page's columns, not
the Page.
"""

cimport cython
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.mem cimport PyMem_Free, PyMem_Malloc


cdef inline Py_ssize_t _int_at(list values, Py_ssize_t i):
    return <Py_ssize_t><object>PyList_GET_ITEM(values, i)


@cython.cdivision(True)   # (a zero divisor gives inf or nan, as numpy does; the nodes' never is)
def _best_region(list node_chars, list node_link_chars, list node_tag_counts, list node_depths,
                 list node_parents, list chars, list link_chars, double tolerance):
    """ttr._best_region: (the region's node or -1, its net text length)."""
    cdef Py_ssize_t n = PyList_GET_SIZE(node_chars), i, first = -1, last = -1, a, b, total = 0
    cdef double best = 0.0, cut, net
    if n == 0:
        return -1, 0
    cdef double* ratio = <double*>PyMem_Malloc(n * sizeof(double))
    if ratio is NULL:
        raise MemoryError()
    try:
        for i in range(n):
            net = <double>_int_at(node_chars, i) - <double>_int_at(node_link_chars, i)
            if net < 25:
                ratio[i] = 0.0   # (as the twin's ratio[(chars - links) < 25] = 0)
            else:
                ratio[i] = net / (<double>_int_at(node_tag_counts, i) + <double>_int_at(node_depths, i))
            if ratio[i] > best:
                best = ratio[i]
        if not best > 0:
            return -1, 0
        cut = tolerance * best
        for i in range(n):
            if ratio[i] >= cut:
                if first < 0:
                    first = i
                last = i
    finally:
        PyMem_Free(ratio)
    # The common ancestor of the first and the last chosen node (nodes are in pre-order, so
    # it is every chosen node's): climb from the deeper one until the two meet.
    a, b = first, last
    while a != b and a >= 0 and b >= 0:
        if a > b:   # a parent comes before its children: the later node is not the ancestor
            a = _int_at(node_parents, a)
        else:
            b = _int_at(node_parents, b)
    if a < 0 or b < 0:
        for i in range(PyList_GET_SIZE(chars)):
            total += _int_at(chars, i) - _int_at(link_chars, i)
        return -1, total
    return a, <Py_ssize_t>(<double>_int_at(node_chars, a) - <double>_int_at(node_link_chars, a))


