"""What of a page's blocks is kept, after the model and the decoder.

`select_blocks` applies the decoder and the options (captions, comments) with the
fallbacks for near-empty selections; the other rules each correct one kind of
mistake the block model makes on its own: a code block cut line by line, a text
rendered twice, custom fields hidden for the page's scripts, a related-posts list
with excerpts. Each is described, with its measurements, in docs/extraction.md
and docs/failure-tail.md.
"""

from __future__ import annotations

import re

import numpy as np

from ..document.elements import FLAG
from ..document.page import Page
from .tables import Table

#: Kept blocks this long whose text repeats under other ids and classes are second renderings.
REPEAT_MIN_CHARS = 60
#: A machine key: a snake_case identifier ("shipping_chunk-1", "cat_thumb_Kiwi").
MACHINE_KEY_RE = re.compile(r"[a-z][a-z0-9]*(?:_[A-Za-z0-9-]+)+")
#: Class words that hide an element until a script shows it.
HIDING_CLASS_WORDS = frozenset(("hide", "hidden", "invisible"))
#: A teaser: a linked title, then an excerpt cut short ("...", "…", "[…]").
TEASER_END_RE = re.compile(r"(?:\.\.\.|…|\[…\]|\[\.\.\.\])\s*$")
#: This many sibling teasers after at least TEASER_BODY_CHARS of body are a related-posts list.
TEASER_RUN = 3
TEASER_BODY_CHARS = 500


def find_code_blocks(page: Page, tables: list[Table]) -> list[Table]:
    """The outermost <pre> elements of more than one block, outside the data tables."""
    if "pre" not in page.node_tags:
        return []
    taken = [(t.first, t.last) for t in tables]
    units: list[Table] = []
    end = -1
    for node, tag in enumerate(page.node_tags):
        if tag != "pre":
            continue
        first, last = page.node_first[node], page.node_last[node]
        if last - first > 1 and first >= end and not any(a <= first < b for a, b in taken):
            units.append(Table(node, first, last))
            end = last
    return units


def drop_renderings(page: Page, mask) -> None:
    """Unselect a second rendering of the same text: a kept block of REPEAT_MIN_CHARS or more
    whose text a kept block before it already has, under other ids and classes (a site's
    mobile and desktop variants of one article, a reply's preview of the post above it). A
    repeat under the same ids and classes is the page's own (a chorus, a repeated note)."""
    first_path: dict[str, tuple] = {}
    for i in np.flatnonzero(mask):
        if page.chars[i] < REPEAT_MIN_CHARS:
            continue
        path = first_path.setdefault(page.texts[i], page.tokens[i])
        if path != page.tokens[i]:
            mask[i] = False


def drop_field_dumps(page: Page, mask) -> None:
    """Unkeep definition lists that a class hides and whose terms are mostly machine keys.

    A shop's custom fields (`<dl class="productView-info hide">` with `tab_Shipping and
    Returns:`, `shipping_chunk-1:`, `cat_thumb_Kiwi:`) are data that the page's scripts read
    to build its tabs, not text for readers. Neither signal alone is enough: a class hides
    many tabs and accordions whose text is content, and API references list identifiers.
    """
    if "dl" not in page.node_tags:
        return
    for node, tag in enumerate(page.node_tags):
        if tag != "dl" or HIDING_CLASS_WORDS.isdisjoint(page.node_tokens[node]):
            continue
        first, last = page.node_first[node], page.node_last[node]
        terms = [page.texts[i] for i in range(first, last) if page.tags[i] == "dt"]
        keys = sum(1 for term in terms if MACHINE_KEY_RE.match(term))
        if len(terms) >= 3 and keys >= 0.5 * len(terms):
            mask[first:last] = False


def drop_trailing_teasers(page: Page, mask) -> None:
    """Unkeep runs of sibling teasers that follow the body (a related-posts list with excerpts).

    Their excerpts are prose, so the model keeps them. On a listing page the teasers are the
    content: a run goes only when the kept text before it is at least TEASER_BODY_CHARS and
    half the run's.
    """
    kept = np.flatnonzero(mask).tolist()
    if len(kept) <= TEASER_RUN:
        return
    texts, chars, link_chars = page.texts, page.chars, page.link_chars
    teasers = [i for i in kept
               if 10 <= link_chars[i] < chars[i] and TEASER_END_RE.search(texts[i]) is not None]
    if len(teasers) < TEASER_RUN:
        return
    parent = {i: page.node_parents[page.nodes[i]] for i in teasers}
    position = {i: k for k, i in enumerate(kept)}
    # Runs of teasers that follow each other among the kept blocks, under one parent.
    runs, run = [], []
    for i in teasers:
        if run and position[i] == position[run[-1]] + 1 and parent[i] == parent[run[-1]]:
            run.append(i)
        else:
            runs.append(run)
            run = [i]
    runs.append(run)
    teaser_set = set(teasers)
    for run in runs:
        if len(run) < TEASER_RUN:
            continue
        body = sum(chars[j] for j in kept if j < run[0] and j not in teaser_set)
        if body >= max(TEASER_BODY_CHARS, sum(chars[j] for j in run) / 2):
            mask[run] = False


def keep_listing_captions(page, mask) -> None:
    """Keep the caption of a code listing or a table whose code or cells are kept.

    Captions are left out as a photo's are, but "Listing 10-3: A trait with a default method"
    under a code sample (mdBook, technical books) names what the reader is looking at, as a
    table's <caption> does. Only a <figcaption> that is a child of the listing's <figure> is
    kept: a figure may also wrap a whole section with its photos and their captions.
    """
    tags, flags, unit = page.node_tags, page.flags, FLAG["pre"] | FLAG["table"]
    first, last, parents = page.node_first, page.node_last, page.node_parents
    for node in _positions(tags, "figcaption"):
        figure = parents[node]
        if figure >= 0 and tags[figure] == "figure" and any(
                mask[i] and flags[i] & unit for i in range(first[figure], last[figure])):
            mask[first[node]:last[node]] = True


def _positions(values: list, value):
    """The indices of `value` in `values` (list.index's scan: most nodes are not looked at in Python)."""
    at = -1
    while True:
        try:
            at = values.index(value, at + 1)
        except ValueError:
            return
        yield at
