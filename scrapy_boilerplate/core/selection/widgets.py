"""A page builder's text widgets around the kept content are one article.

Page builders (Elementor, WPBakery, Divi, Beaver Builder, Squarespace...) put every
paragraph, subheading or credit line of a post in its own widget, each wrapped in
several layers of rows, columns and containers. The model sees a short text deep in
generic wrappers and scores the later pieces low: the first widget is kept, the rest
of the article is lost. A run of text widgets, one after the other in the page, that
holds kept content is kept whole: the builder's own class names say that these boxes
are the editor's text, whatever the model makes of each one alone.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from ..document.cue_words import TOKEN_SPLIT_RE
from ..document.elements import FLAG, HEADING_TAGS

if TYPE_CHECKING:
    from ..document.page import Page

#: Class names of the rich-text and heading widgets of the common page builders.
TEXT_WIDGET_CLASSES = frozenset(
    (
        "elementor-widget-text-editor",
        "elementor-widget-heading",  # Elementor
        "wpb_text_column",
        "vc_custom_heading",  # WPBakery
        "et_pb_text",
        "et_pb_heading",  # Divi
        "fl-module-rich-text",
        "fl-module-heading",  # Beaver Builder
        "sqs-block-html",  # Squarespace
        "siteorigin-widget-tinymce",  # SiteOrigin
        "oxy-rich-text",
        "brxe-text",
        "brxe-heading",  # Oxygen, Bricks
    )
)
#: The first word of each of those class names as the walk splits them (page.tokens): a
#: block with none of these among its class words is in no text widget.
BUILDER_WORDS = frozenset(TOKEN_SPLIT_RE.split(name)[0] for name in TEXT_WIDGET_CLASSES)
#: Blocks under these flags are not the article, whatever wraps them.
_OUTSIDE_CONTENT = sum(
    FLAG[name]
    for name in (
        "nav",
        "footer",
        "header",
        "aside",
        "comment",
        "form",
        "share",
        "related",
        "ad",
        "cookie",
        "newsletter",
    )
)
_NUMBERED_RE = re.compile(r"\d")
#: Blocks the model is this sure are boilerplate stay out ("Advertisement" in a text widget).
MIN_PROBABILITY = 0.1


def keep_text_widget_runs(page: Page, mask: np.ndarray, proba: np.ndarray) -> None:
    """Set `mask` over each run of consecutive blocks in text widgets of one kind that holds a kept block."""
    if not mask.any() or not page.node_elements:
        return
    kept = np.flatnonzero(mask).tolist()
    tokens = page.tokens
    # Most pages have no builder: their kept blocks' class words (the walk's, nearest first) say so.
    if all(BUILDER_WORDS.isdisjoint(tokens[i]) for i in kept):
        return
    kinds = _WidgetKinds(page)
    # The kinds of widget the kept content is in: a run goes on only through widgets of these
    # kinds (a related-posts box or an FAQ built with the same builder has classes of its own).
    kept_kinds = {kinds.of_block(i) for i in kept} - {None}
    if not kept_kinds:
        return
    flags, chars, link_chars = page.flags, page.chars, page.link_chars
    end = 0
    for i in kept:
        if i < end or kinds.of_block(i) not in kept_kinds:
            continue
        # The run around this kept block, out to the first block in no widget of a kept kind.
        start, end = i, i + 1
        while start > 0 and kinds.of_block(start - 1) in kept_kinds:
            start -= 1
        end = _run_end(page, kinds, kept_kinds, end)
        for j in range(start, end):
            if not flags[j] & _OUTSIDE_CONTENT and proba[j] >= MIN_PROBABILITY and link_chars[j] < 0.8 * chars[j]:
                mask[j] = True


def _run_end(page: Page, kinds: _WidgetKinds, kept_kinds: set[frozenset[str] | None], end: int) -> int:
    """One past the last block of the run going on at `end`: blocks in widgets of a kept kind,
    and subheadings in widgets of any kind when text of a kept kind follows them."""
    n, tags = len(page.tags), page.tags
    while end < n:
        if kinds.of_block(end) in kept_kinds:
            end += 1
            continue
        after = end
        while after < n and tags[after] in HEADING_TAGS and kinds.of_block(after) is not None:
            after += 1
        if after == end or after == n or kinds.of_block(after) not in kept_kinds:
            break
        end = after + 1
    return end


class _WidgetKinds:
    """The kind of the innermost text widget around a block: the widget's class names without
    the numbered ones ("elementor-element-35a78cef", "et_pb_text_23"), or None."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.node_kind: dict[int, frozenset[str] | None] = {}

    def of_block(self, block: int) -> frozenset[str] | None:
        node = self.page.nodes[block]
        return self.of_node(node) if node >= 0 else None

    def of_node(self, node: int) -> frozenset[str] | None:
        kinds, parents, elements = self.node_kind, self.page.node_parents, self.page.node_elements
        path = []
        while node >= 0 and node not in kinds:
            path.append(node)
            node = parents[node]
        kind = kinds.get(node)
        # From the outermost unknown ancestor in: a widget's kind holds for all inside it.
        for inner in reversed(path):
            names = (elements[inner].get("class") or "").split()
            if names and not TEXT_WIDGET_CLASSES.isdisjoint(names):
                kind = frozenset(name for name in names if not _NUMBERED_RE.search(name))
            kinds[inner] = kind
        return kind
