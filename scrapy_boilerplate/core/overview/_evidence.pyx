# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled twin of evidence.py: the loops of the overview page evidence.

The references are evidence._block_sums, _node_tokens, _short_link_texts and
_teaser_cards, under the same names and in the same order. This module must
give the very same values (the shipped models were trained on them). Each
function is one typed loop over the page's blocks or nodes (it takes the
page's columns, not the Page), where the twins make numpy calls on small
arrays (converting the page's lists first) or run a Python loop per node; the
text patterns (teaser phrases, prices, dates, link words) stay with the
caller's regexes.
"""

cimport cython
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.ref cimport PyObject


cdef inline Py_ssize_t _int_at(list values, Py_ssize_t i):
    return <Py_ssize_t><object>PyList_GET_ITEM(values, i)



def _block_sums(list chars, list link_chars, list tags, list tokens, list teaser,
               Py_ssize_t first, Py_ssize_t last, frozenset heading_tags, frozenset pagination_tokens):
    """overview._block_sums: the fields of BlockSums, in order.

    `teaser`: sorted block indices whose characters all count as link characters.
    """
    cdef Py_ssize_t n = PyList_GET_SIZE(chars), i, k, next_teaser, n_teaser = PyList_GET_SIZE(teaser)
    cdef Py_ssize_t c, lc, net, run = 0
    cdef long long total = 0, links = 0, net_total = 0, max_net = 0
    cdef long long region_chars = 0, region_links = 0, region_net = 0
    cdef long long long_paras = 0, long_para_run = 0, long_para_chars = 0
    cdef long long headings = 0, linked_headings = 0, link_blocks = 0, short_link_blocks = 0
    cdef long long headline_links = 0, h1 = 0, pagination = 0
    cdef double ld
    cdef bint heading, link_block, in_pager = False
    cdef object previous_tokens = None
    k = 0
    next_teaser = _int_at(teaser, 0) if n_teaser else -1
    for i in range(n):
        c = _int_at(chars, i)
        if i == next_teaser:   # a teaser phrase: all link
            lc = c
            k += 1
            next_teaser = _int_at(teaser, k) if k < n_teaser else -1
        else:
            lc = _int_at(link_chars, i)
        net = c - lc if c > lc else 0
        total += c
        links += lc
        net_total += net
        if net > max_net:
            max_net = net
        if first <= i < last:
            region_chars += c
            region_links += lc
            region_net += net
        # the twin's link density: a float division, compared as numpy compares it
        ld = <double>lc / <double>(c if c > 1 else 1)
        if c >= 200 and ld < 0.2:
            long_paras += 1
            long_para_chars += c
            run += 1
            if run > long_para_run:
                long_para_run = run
        else:
            run = 0
        tag = <object>PyList_GET_ITEM(tags, i)
        heading = tag in heading_tags
        link_block = ld >= 0.8
        headings += heading
        linked_headings += heading and link_block
        link_blocks += link_block
        short_link_blocks += link_block and c < 60
        headline_links += lc >= 25 and ld >= 0.6 and c < 200
        h1 += tag == "h1"
        # Blocks in a row often share their tokens tuple (the same ancestors): judge it once.
        block_tokens = <object>PyList_GET_ITEM(tokens, i)
        if block_tokens is not previous_tokens:
            previous_tokens = block_tokens
            in_pager = False
            if block_tokens:
                for token in block_tokens:
                    if token in pagination_tokens:
                        in_pager = True
                        break
        pagination += in_pager
    return (total, links, net_total, max_net, region_chars, region_links, region_net,
            long_paras, long_para_run, long_para_chars, headings, linked_headings, link_blocks,
            short_link_blocks, headline_links, h1, pagination)


def _node_tokens(list ntokens):
    """evidence._node_tokens: the union of the nodes' id/class tokens."""
    cdef set found = set(), seen = set()
    cdef Py_ssize_t i
    cdef object previous = None
    for i in range(PyList_GET_SIZE(ntokens)):
        tokens = <object>PyList_GET_ITEM(ntokens, i)
        # Nodes of one template share one tuple of tokens: add each tuple's tokens once.
        if tokens is previous or not tokens:
            continue
        previous = tokens
        if tokens in seen:
            continue
        seen.add(tokens)
        found.update(<tuple>tokens)
    return found


def _short_link_texts(list texts, list chars, list link_chars, Py_ssize_t limit):
    """evidence._short_link_texts: texts under `limit` characters
    with at least 80 % link characters (compared as the twin compares them, in floats)."""
    cdef Py_ssize_t i, c
    cdef list out = []
    for i in range(PyList_GET_SIZE(texts)):
        c = _int_at(chars, i)
        if c < limit and <double>_int_at(link_chars, i) >= 0.8 * <double>c:
            out.append(<object>PyList_GET_ITEM(texts, i))
    return out


def _teaser_cards(list parents, list firsts, list lasts, list ntags, list ntokens, list nflags,
                 list chars, list link_chars, long long nav):
    """overview._teaser_cards on the page's node and block lists (the same tuple)."""
    cdef Py_ssize_t n_blocks = PyList_GET_SIZE(chars), n_nodes = PyList_GET_SIZE(parents)
    cdef Py_ssize_t i, j, start, stop, end, head_links, most
    cdef long long* acc_chars = <long long*>PyMem_Malloc((n_blocks + 1) * sizeof(long long))
    cdef long long* acc_links = <long long*>PyMem_Malloc((n_blocks + 1) * sizeof(long long))
    if acc_chars is NULL or acc_links is NULL:
        PyMem_Free(acc_chars)
        PyMem_Free(acc_links)
        raise MemoryError()
    cdef dict groups = {}, signatures = {}
    try:
        acc_chars[0] = acc_links[0] = 0
        for i in range(n_blocks):
            acc_chars[i + 1] = acc_chars[i] + _int_at(chars, i)
            acc_links[i + 1] = acc_links[i] + _int_at(link_chars, i)
        for i in range(n_nodes):
            start, stop = _int_at(firsts, i), _int_at(lasts, i)
            if _int_at(parents, i) < 0 or stop <= start:
                continue
            end = stop if stop < start + 8 else start + 8
            head_links = acc_links[end] - acc_links[start]
            if head_links < 15 or <long long><object>PyList_GET_ITEM(nflags, i) & nav:
                continue
            tag = <object>PyList_GET_ITEM(ntags, i)
            if tag == "p" or tag == "td" or tag == "tr":
                continue
            most = 0
            for j in range(start, end):
                if _int_at(link_chars, j) > most:
                    most = _int_at(link_chars, j)
            if most < 15:
                continue
            tokens = <object>PyList_GET_ITEM(ntokens, i)
            key = (<object>PyList_GET_ITEM(parents, i), tag, tokens)
            count, total, net = groups.get(key, (0, 0, 0))
            groups[key] = (count + 1, total + head_links,
                           net + (acc_chars[stop] - acc_chars[start]) - (acc_links[stop] - acc_links[start]))
            # The same card template anywhere on the page (grids split over several rows).
            if tokens:
                sig = (tag, tokens)
                signatures[sig] = signatures.get(sig, 0) + 1
    finally:
        PyMem_Free(acc_chars)
        PyMem_Free(acc_links)
    big = [g for g in groups.values() if g[0] >= 3]
    items = sum([c for c, _, _ in big])
    max_group = max([c for c, _, _ in big], default=0)
    repeated = max(signatures.values(), default=0)
    mean_link = sum([t for _, t, _ in big]) / items if items else 0.0
    mean_net = sum([max(x, 0) for _, _, x in big]) / items if items else 0.0
    return len(big), items, mean_link, max_group, repeated, mean_net
