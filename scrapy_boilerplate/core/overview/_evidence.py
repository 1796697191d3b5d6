# cython: boundscheck=False, wraparound=False
"""The loops of the overview page evidence (evidence.block_sums, page_tokens, teaser_cards).

One source (Cython's pure-Python mode: the `cython` annotations type the locals), compiled where
the package was built with a C compiler and run as Python where it was not. Each function is one
loop over the page's blocks or nodes (it takes the page's columns, not the Page); the text
patterns (teaser phrases, prices, dates, link words) stay with the caller's regexes. The values
must stay what they are (the shipped models were trained on them).
"""

from __future__ import annotations

from itertools import accumulate
from typing import TYPE_CHECKING

try:
    import cython
except ModuleNotFoundError:  # run as Python, without Cython (core/_cython.py)
    from .. import _cython as cython  # type: ignore[no-redef]

if TYPE_CHECKING:
    from ..document.page import Tokens

HEAD = 8  # a card's head: its first blocks (selection.cards.HEAD_BLOCKS)


def _block_sums(
    chars: list[int],
    link_chars: list[int],
    tags: list[str],
    tokens: list[Tokens],
    teaser: list[int],
    first: cython.Py_ssize_t,
    last: cython.Py_ssize_t,
    heading_tags: frozenset[str],
    pagination_tokens: frozenset[str],
) -> tuple[int, ...]:
    """The fields of evidence.BlockSums, in order. `teaser`: sorted block indices whose characters
    all count as link characters; the region: blocks first..last-1."""
    n: cython.Py_ssize_t = len(chars)
    n_teaser: cython.Py_ssize_t = len(teaser)
    i: cython.Py_ssize_t
    k: cython.Py_ssize_t = 0
    next_teaser: cython.Py_ssize_t = teaser[0] if n_teaser else -1
    c: cython.Py_ssize_t
    lc: cython.Py_ssize_t
    net: cython.Py_ssize_t
    run: cython.Py_ssize_t = 0
    total: cython.longlong = 0
    links: cython.longlong = 0
    net_total: cython.longlong = 0
    max_net: cython.longlong = 0
    region_chars: cython.longlong = 0
    region_links: cython.longlong = 0
    region_net: cython.longlong = 0
    long_paras: cython.longlong = 0
    long_para_run: cython.longlong = 0
    long_para_chars: cython.longlong = 0
    headings: cython.longlong = 0
    linked_headings: cython.longlong = 0
    link_blocks: cython.longlong = 0
    short_link_blocks: cython.longlong = 0
    headline_links: cython.longlong = 0
    h1: cython.longlong = 0
    pagination: cython.longlong = 0
    ld: cython.double
    heading: cython.bint
    link_block: cython.bint
    in_pager: cython.bint = False
    previous_tokens: object = None
    for i in range(n):
        c = chars[i]
        if i == next_teaser:  # a teaser phrase: all link
            lc = c
            k += 1
            next_teaser = teaser[k] if k < n_teaser else -1
        else:
            lc = link_chars[i]
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
        # link density: a true division of the two counts (as floats; they are exact in them)
        ld = lc / (c if c > 1 else 1)
        if c >= 200 and ld < 0.2:
            long_paras += 1
            long_para_chars += c
            run += 1
            if run > long_para_run:
                long_para_run = run
        else:
            run = 0
        tag = tags[i]
        heading = tag in heading_tags
        link_block = ld >= 0.8
        headings += heading
        linked_headings += heading and link_block
        link_blocks += link_block
        short_link_blocks += link_block and c < 60
        headline_links += lc >= 25 and ld >= 0.6 and c < 200
        h1 += tag == "h1"
        # Blocks in a row often share their tokens tuple (the same ancestors): judge it once.
        block_tokens = tokens[i]
        if block_tokens is not previous_tokens:
            previous_tokens = block_tokens
            in_pager = False
            if block_tokens:
                for token in block_tokens:
                    if token in pagination_tokens:
                        in_pager = True
                        break
        pagination += in_pager
    sums = (total, links, net_total, max_net, region_chars, region_links, region_net, long_paras)
    paras = (long_para_run, long_para_chars, headings, linked_headings, link_blocks, short_link_blocks)
    return (*sums, *paras, headline_links, h1, pagination)


def _node_tokens(ntokens: list[Tokens]) -> set[str]:
    """The union of the nodes' id/class tokens."""
    found: set[str] = set()
    seen: set[Tokens] = set()
    previous: object = None
    for tokens in ntokens:
        # Nodes of one template share one tuple of tokens: add each tuple's tokens once.
        if tokens is previous or not tokens:
            continue
        previous = tokens
        if tokens in seen:
            continue
        seen.add(tokens)
        found.update(tokens)
    return found


def _short_link_texts(texts: list[str], chars: list[int], link_chars: list[int], limit: cython.Py_ssize_t) -> list[str]:
    """The texts under `limit` characters with at least 80 % link characters."""
    out: list[str] = []
    i: cython.Py_ssize_t
    c: cython.Py_ssize_t
    lc: cython.Py_ssize_t
    for i in range(len(texts)):
        c = chars[i]
        lc = link_chars[i]
        if c < limit and lc >= 0.8 * c:
            out.append(texts[i])
    return out


def _teaser_cards(
    parents: list[int],
    firsts: list[int],
    lasts: list[int],
    ntags: list[str],
    ntokens: list[Tokens],
    nflags: list[int],
    chars: list[int],
    link_chars: list[int],
    nav: cython.longlong,
) -> tuple[int, int, float, int, int, float]:
    """evidence.teaser_cards on the page's node and block lists: groups of >= 3 sibling cards (the
    same tag and tokens, each with at least 15 link characters in its head and a block of them
    with 15 or more; not in a nav, not a p, td or tr)."""
    n_nodes: cython.Py_ssize_t = len(parents)
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t
    start: cython.Py_ssize_t
    stop: cython.Py_ssize_t
    end: cython.Py_ssize_t
    parent: cython.Py_ssize_t
    a: cython.longlong
    b: cython.longlong
    head_links: cython.longlong
    most: cython.longlong
    lc: cython.longlong
    flags: cython.longlong
    acc_chars: list[int] = list(accumulate(chars, initial=0))
    acc_links: list[int] = list(accumulate(link_chars, initial=0))
    groups: dict[tuple[int, str, Tokens], tuple[int, int, int]] = {}
    signatures: dict[tuple[str, Tokens], int] = {}
    for i in range(n_nodes):
        start = firsts[i]
        stop = lasts[i]
        parent = parents[i]
        if parent < 0 or stop <= start:
            continue
        end = stop if stop < start + HEAD else start + HEAD
        a = acc_links[end]
        b = acc_links[start]
        head_links = a - b
        flags = nflags[i]
        if head_links < 15 or flags & nav:
            continue
        tag = ntags[i]
        if tag == "p" or tag == "td" or tag == "tr":
            continue
        most = 0
        for j in range(start, end):
            lc = link_chars[j]
            if lc > most:
                most = lc
        if most < 15:
            continue
        tokens = ntokens[i]
        key = (parent, tag, tokens)
        count, links, net = groups.get(key, (0, 0, 0))
        groups[key] = (
            count + 1,
            links + head_links,
            net + (acc_chars[stop] - acc_chars[start]) - (acc_links[stop] - acc_links[start]),
        )
        # The same card template anywhere on the page (grids split over several rows).
        if tokens:
            signatures[tag, tokens] = signatures.get((tag, tokens), 0) + 1
    big = [g for g in groups.values() if g[0] >= 3]
    items = sum([c for c, _, _ in big])
    max_group = max([c for c, _, _ in big], default=0)
    repeated = max(signatures.values(), default=0)
    mean_link = sum([t for _, t, _ in big]) / items if items else 0.0
    mean_net = sum([max(x, 0) for _, _, x in big]) / items if items else 0.0
    return len(big), items, mean_link, max_group, repeated, mean_net
