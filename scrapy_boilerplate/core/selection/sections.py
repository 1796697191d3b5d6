"""A last section cut off behind a heading the model scores low.

The decoder ends the content where the model's probabilities fall: a last
section whose heading is not a heading tag (a `div` or a `p`: "Related
products and services", a post's "name, date" line) is scored low, and
crossing it costs the Viterbi pass more than the short section after it
gains, so the heading, its list items and its closing paragraph are all cut,
although the model leans to each of them. The decoder's tail rule, which
keeps blocks the model leans to right after the content, stops at the
heading-like line.

Here, right after the last kept block: one heading-like line (a `div`, `p`,
`span`, `strong` or `b` of HEADING_MAX_CHARS or less, no sentence end, not a
link, not sure boilerplate), then the blocks the model leans to
(TAIL_PROBABILITY or more, not headings, few links) up to the first it does
not lean to. The section is kept when that run holds at least
SECTION_MIN_CHARS: a lone call to action ("Start free" over one line) is not
a section. Sections under h1-h6 are left to the decoder's heading rules:
measured, keeping them too cost as many pages as it gained (calls to action
and comment headers after the body).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..document.elements import FLAG, HEADING_TAGS
from ..scoring.decode import TAIL_PROBABILITY

if TYPE_CHECKING:
    import numpy as np

    from ..document.page import Page

#: A heading-like line: at most this long, no sentence end.
HEADING_MAX_CHARS = 60
SENTENCE_END_RE = re.compile(r"[.!?:;,…]\s*$")
#: The run after the heading must hold this much text.
SECTION_MIN_CHARS = 150
#: The heading itself is not one the model is sure is boilerplate.
HEADING_MIN_PROBABILITY = 0.2
_OFF = FLAG["nav"] | FLAG["footer"] | FLAG["aside"]


def keep_last_section(page: Page, mask: np.ndarray, proba: np.ndarray) -> None:
    """Keep a heading-led last section after the last kept block (in place), as above."""
    kept = mask.nonzero()[0]
    if not kept.size:
        return
    h = int(kept[-1]) + 1
    n = len(page)
    if h >= n or proba[h] < HEADING_MIN_PROBABILITY or not _heading_like(page, h):
        return
    end = h + 1
    while end < n and _leans_to_text(page, proba, end):
        end += 1
    if sum(page.chars[h + 1 : end]) >= SECTION_MIN_CHARS:
        mask[h:end] = True


def _heading_like(page: Page, i: int) -> bool:
    if page.flags[i] & _OFF or page.link_chars[i] >= 0.5 * page.chars[i]:
        return False
    if page.tags[i] in HEADING_TAGS:
        return False
    return (
        page.tags[i] in ("div", "p", "span", "strong", "b")
        and page.chars[i] <= HEADING_MAX_CHARS
        and SENTENCE_END_RE.search(page.texts[i]) is None
    )


def _leans_to_text(page: Page, proba: np.ndarray, i: int) -> bool:
    return (
        proba[i] >= TAIL_PROBABILITY
        and page.tags[i] not in HEADING_TAGS
        and not page.flags[i] & (FLAG["heading"] | _OFF)
        and page.link_chars[i] < 0.5 * page.chars[i]
    )
