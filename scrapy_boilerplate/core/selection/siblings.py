"""A document's sections are one text: the sections beside the kept ones are kept too.

Reference pages and manuals (a man page, a Sphinx chapter, an API reference)
are a run of sibling sections, each a `section` or `div` led by its own
subheading. The model scores each block alone, and its probabilities fall
along a long page: the later sections ("COMMIT INFORMATION", "DATE FORMATS",
"HOOKS"), or the first ones ("NAME", "SYNOPSIS"), score .2-.5 block by block
and the decoder cuts them, although the reader's document goes on. Here the
sections of one group (one parent, one tag, led by subheadings of one tag)
are decided as a unit once the model kept at least HELD_MIN_SECTIONS of them
and HELD_MIN_CHARS of their text: a section between kept ones, and the runs
of sections after the last and before the first kept one, up to the first
that fails, are kept when their text is not mostly links, not in a
navigation, aside or footer, and likely content on average (the model's
probabilities weighted by characters, SECTION_MIN_PROBABILITY or more).

A group none of whose sections was kept is taken the same way, from its first
section on, when it starts right after the kept content with only navigation
and asides between (a reference page's introduction, its "In this article"
table of contents, then its sections: "Constructor", "Instance properties").

Sections whose heading is a link to another page are posts in a list (a blog's
front page), not a document's sections: they are left to the model. So is a
group the model kept one section of, or little text in: measured, an FAQ
accordion or a product page's tabs, of which the model kept one item, were
mostly not content in the gold.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..document.elements import FLAG

if TYPE_CHECKING:
    from ..document.page import Page

SECTION_TAGS = frozenset(("section", "div"))
SUB_HEADINGS = frozenset(("h2", "h3", "h4", "h5", "h6"))
#: A section is kept when its char-weighted mean probability is at least this.
SECTION_MIN_PROBABILITY = 0.2
#: The group's kept sections and text before it is decided as a unit.
HELD_MIN_SECTIONS = 2
HELD_MIN_CHARS = 1000
#: A group that follows the kept content needs this many sections.
FOLLOW_MIN_SECTIONS = 3
_OFF = FLAG["nav"] | FLAG["footer"] | FLAG["aside"]


def keep_sibling_sections(page: Page, mask: np.ndarray, proba: np.ndarray) -> None:
    """Keep the sections of a document next to the sections it kept (in place), as above."""
    if not mask.any():
        return
    first, last, chars = page.node_first, page.node_last, page.chars
    for sections in _section_groups(page):
        held = [bool(mask[first[s] : last[s]].any()) for s in sections]
        held_chars = sum(chars[j] for s in sections for j in range(first[s], last[s]) if mask[j])
        if sum(held) >= HELD_MIN_SECTIONS and held_chars >= HELD_MIN_CHARS:
            lo, hi = held.index(True), len(held) - 1 - held[::-1].index(True)
            for k in range(lo + 1, hi):
                if not held[k] and _likely_section(page, proba, sections[k]):
                    _keep_section(page, mask, sections[k])
            runs = (sections[hi + 1 :], sections[lo - 1 :: -1] if lo else [])
        elif (
            not any(held) and len(sections) >= FOLLOW_MIN_SECTIONS and _follows_content(page, mask, first[sections[0]])
        ):
            runs = (sections, [])
        else:
            continue
        for run in runs:
            for s in run:
                if not _likely_section(page, proba, s):
                    break
                _keep_section(page, mask, s)


def _section_groups(page: Page) -> list[list[int]]:
    """Sibling sections: boxes of one tag under one parent, each led by a subheading of one tag
    (its first block, a child of the box), in page order; groups of two or more."""
    nodes, parents, node_tags = page.nodes, page.node_parents, page.node_tags
    first, last = page.node_first, page.node_last
    groups: dict[tuple[int, str, str], list[int]] = {}
    headings = sorted((i, tag) for tag in SUB_HEADINGS for i in page.tag_positions(tag))
    for i, tag in headings:
        box = parents[nodes[i]]
        if box < 0 or first[box] != i or last[box] - i < 2 or node_tags[box] not in SECTION_TAGS:
            continue
        groups.setdefault((parents[box], node_tags[box], tag), []).append(box)
    return [group for group in groups.values() if len(group) >= 2]


def _likely_section(page: Page, proba: np.ndarray, s: int) -> bool:
    """Section `s` is likely content: not navigation, an aside or a footer, not a post's
    linked title, not mostly links, char-weighted mean probability SECTION_MIN_PROBABILITY or more."""
    a, b = page.node_first[s], page.node_last[s]
    if page.node_flags[s] & _OFF or _titles_a_page(page, a):
        return False
    chars = page.chars[a:b]
    total = sum(chars)
    if not total or 2 * sum(page.link_chars[a:b]) >= total:
        return False
    return float(np.dot(proba[a:b], chars)) >= SECTION_MIN_PROBABILITY * total


def _keep_section(page: Page, mask: np.ndarray, s: int) -> None:
    flags = page.flags
    for j in range(page.node_first[s], page.node_last[s]):
        if not flags[j] & _OFF:
            mask[j] = True


def _titles_a_page(page: Page, i: int) -> bool:
    """Heading block `i` is a link to another page (a post's title in a list of posts), not a
    section's own heading (whose link, if any, is its anchor: "#usage")."""
    if 2 * page.link_chars[i] < page.chars[i]:
        return False
    element = page.node_elements[page.nodes[i]]
    return any(not (a.get("href") or "#").startswith("#") for a in element.iter("a"))


def _follows_content(page: Page, mask: np.ndarray, a: int) -> bool:
    """Block `a` comes right after a kept block, past navigation and asides only (a reference
    page's table of contents between its introduction and its sections)."""
    j = a - 1
    while j >= 0 and not mask[j]:
        if not page.flags[j] & _OFF:
            return False
        j -= 1
    return j >= 0
