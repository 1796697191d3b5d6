"""The walk: one iterative pass over the tree that cuts it into blocks and nodes.

A *block* is the text between two block-level tag boundaries (boilerpipe,
Yao & Zuo): inline tags such as ``a``, ``b`` or ``span`` do not split it.
Every block remembers what the features need (text, link text, tag, depth,
id/class tokens of itself and its ancestors, semantic ancestors, position),
and every block-level element becomes a *node* with subtree totals, so
region scores (Readability, TextSweeper) come from the same walk.

Pre-cleaning never mutates the tree: unwanted subtrees (scripts, hidden
elements, dialogs, comment sections...) are skipped during the walk, so a
tree handed in by the caller (Scrapy's ``response.selector``) stays intact.

``walk_blocks`` here is the reference; ``_walk.pyx`` is its compiled twin.
"""

from __future__ import annotations

from itertools import accumulate
from typing import TYPE_CHECKING, cast

from lxml import etree

from .cue_words import CUE_CACHE
from .cues import BODY_PROPS, COMMENT_SAFE_TAGS, ROLE_FLAGS, class_cues
from .elements import (
    BLOCK_TAGS,
    FLAG,
    K_BLOCK,
    K_BR,
    K_IMG,
    K_INLINE,
    K_LINK,
    K_PRE,
    K_SKIP,
    SEPARATE_JOINERS,
    SEPARATE_TAGS,
    SPECIAL_ATTRS,
    TAG_INFO,
    clean_tag,
    is_anchor_mark,
    tag_info,
)
from .head import (
    MICRODATA_PROPS,
    note_microdata,
    read_body_meta,
    read_head,
    read_jsonld,
)
from .hidden import is_hidden
from .words import clean_text, count_words, drop_controls

if TYPE_CHECKING:
    from collections.abc import Collection

    from .page import Page, Tokens

#: The walk stops adding blocks after this many (bounded memory and time).
MAX_BLOCKS = 20000
_PLAIN_STATE = (0, 0, (), 0)  # an element that changed no walk state
FLAG_LINK, FLAG_BODY = FLAG["link"], FLAG["body_prop"]


# What start() tells run() to do with the element's children (as in _walk.pyx).
SKIP_SUBTREE, WALK_NO_TEXT, WALK_WITH_TEXT = 0, 1, 2


class _Walker:
    """The walk's state and its events, as in the compiled _Walker (_walk.pyx), method for method.

    The compiled walker's other methods manage its C buffers (push_frame, push_node, append,
    collapse, append_run) or step through libxml2's nodes (next_element); here lxml's iterwalk
    steps and Python lists hold the state. Per open element the stack holds None (skipped),
    _PLAIN_STATE (nothing to restore), or (block kind or 0, parent's flags, parent's tokens,
    is a link).
    """

    __slots__ = (
        "page",
        "root",
        "include_comments",
        "skip_hidden",
        "opened",
        "read_noscript",
        "texts",
        "tags",
        "nodes",
        "depths",
        "chars",
        "words",
        "link_chars",
        "links",
        "tag_counts",
        "flags",
        "tokens",
        "n_tags",
        "n_parents",
        "n_depths",
        "n_first",
        "n_last",
        "n_tagc",
        "n_flags",
        "n_tokens",
        "n_elements_of",
        "images",
        "jsonld",
        "stack",
        "pending",
        "pend_link",
        "pend_links",
        "pend_tags",
        "link_depth",
        "pre_depth",
        "node_stack",
        "node_start",
        "cur_flags",
        "cur_tokens",
        "br_run",
        "depth",
        "limit_hit",
        "separate_end",
        "n_elements",
        "hidden_skipped",
        "cue_young",
        "walker",
    )

    def __init__(self, root: etree._Element, page: Page, include_comments: bool, skip_hidden: bool) -> None:
        self.page, self.root = page, root
        self.include_comments, self.skip_hidden = include_comments, skip_hidden
        self.opened, self.read_noscript = page.opened, page.read_noscript
        self.texts, self.tags, self.nodes, self.depths = page.texts, page.tags, page.nodes, page.depths
        self.chars, self.words, self.link_chars = page.chars, page.words, page.link_chars
        self.links, self.tag_counts, self.flags, self.tokens = page.links, page.tag_counts, page.flags, page.tokens
        self.n_tags, self.n_parents, self.n_depths = page.node_tags, page.node_parents, page.node_depths
        self.n_first, self.n_last = page.node_first, page.node_last
        self.n_tagc, self.n_flags, self.n_tokens = page.node_tag_counts, page.node_flags, page.node_tokens
        self.n_elements_of = page.node_elements
        self.images, self.jsonld = page.images, page.jsonld
        # Per open element: (block kind, the parent's flags and tokens, was a link), or None.
        self.stack: list[tuple[int, int, Tokens, int] | None] = []
        self.pending: list[str] = []  # text pieces of the open block
        self.pend_link = 0  # characters of link text in the open block
        self.pend_links = 0  # number of links started in the open block
        self.pend_tags = 0
        self.link_depth = 0
        self.pre_depth = 0
        self.node_stack = [-1]  # open block-level nodes
        self.node_start: list[int] = []  # n_elements when each open node started
        self.cur_flags = 0
        self.cur_tokens: Tokens = ()
        self.br_run = 0
        self.depth = 0
        self.limit_hit = False
        # The open block's text ends where a SEPARATE_TAGS element ended (no text after it yet).
        self.separate_end = False
        self.n_elements = 0  # start tags seen so far (subtree tag counts by difference)
        self.hidden_skipped = 0
        self.cue_young = CUE_CACHE.young  # the hot path looks here first, at dict speed
        # Comments and processing instructions come as their own events (only in
        # trees handed in by the caller; our parser drops them): their tails are text.
        self.walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))

    def flush(self) -> None:
        """The open block's text, if any, becomes a block."""
        pending = self.pending
        if pending:
            # Control characters go before the whitespace is read (as _walk.pyx).
            if self.pre_depth:
                text = drop_controls("".join(pending)).strip("\n")
                if not text.strip():
                    text = ""
                n_words = count_words(text)
            else:
                parts = drop_controls("".join(pending)).split()
                text = " ".join(parts)
                # count_words(text) without splitting the text a second time
                n_words = len(parts) if text.isascii() else count_words(text)
            pending.clear()
            if not text.isascii():
                text = clean_text(text)  # NFC, no soft hyphens (after counting words: as _walk.pyx)
            if text:
                if len(self.texts) >= MAX_BLOCKS:
                    self.limit_hit = True
                else:
                    node = self.node_stack[-1]
                    self.texts.append(text)
                    self.tags.append(self.n_tags[node] if node >= 0 else "html")
                    self.nodes.append(node)
                    self.depths.append(self.depth)
                    n_chars_text = len(text)
                    self.chars.append(n_chars_text)
                    self.words.append(n_words)
                    self.link_chars.append(min(self.pend_link, n_chars_text))
                    self.links.append(self.pend_links)
                    self.tag_counts.append(self.pend_tags)
                    self.flags.append(self.cur_flags)
                    self.tokens.append(self.cur_tokens)
        self.pend_link = self.pend_links = self.pend_tags = 0
        self.br_run = 0

    def add_text(self, text: str | None) -> None:
        """An element's text or tail (or a comment's tail), into the open block."""
        if text:
            self.separate_end = False
            if text.isspace():
                # Whitespace between elements only matters inside a text run.
                if self.pending:
                    self.pending.append(text if self.pre_depth else " ")
            else:
                self.pending.append(text)
                if self.link_depth:
                    self.pend_link += len(text.strip())
                self.br_run = 0

    def info(self, el: etree._Element) -> tuple[int, int]:
        """Kind and own flag bits of an element, by its tag."""
        # An element's tag: comments and processing instructions come as their own events.
        info = TAG_INFO.get(cast(str, el.tag))
        if info is None:
            info = tag_info(el.tag)
        return info

    def attributes(
        self, el: etree._Element, keys: Collection[str], kind: int, own: int, cur_tokens: Tokens
    ) -> tuple[int, Tokens, Tokens] | None:
        """What an element's attributes add to its own flags and tokens: (own flags, own tokens,
        tokens), or None when they make the walk skip it (an anchor mark, hidden, a comment
        section). The compiled walker's attributes() reads them from the node's attribute list."""
        own_tokens: Tokens = ()
        tokens = cur_tokens
        if kind == K_LINK and is_anchor_mark(el):
            return None
        if not SPECIAL_ATTRS.isdisjoint(keys):
            if self.skip_hidden and el is not self.root and is_hidden(el, self.opened):
                self.hidden_skipped += 1
                return None
            role = el.get("role")
            if role:
                own |= ROLE_FLAGS.get(role, 0)
            prop = el.get("itemprop")
            if prop:
                prop = prop.lower()
                if prop in BODY_PROPS:
                    own |= FLAG_BODY
                elif prop in MICRODATA_PROPS:
                    note_microdata(prop, el, self.page)
        cls = el.get("class") if "class" in keys else None
        idv = el.get("id") if "id" in keys else None
        if cls or idv:
            cue = self.cue_young.get((idv, cls))
            if cue is None:
                cue = class_cues(idv, cls)
            # Inside <pre>, a "comment" class (hljs-comment, "token comment") is a
            # highlighter's code comment, not a comment section.
            if cue[2] and not self.include_comments and not self.pre_depth and el.tag not in COMMENT_SAFE_TAGS:
                return None
            if cue[0] and el.tag != "body" and el.tag != "html":
                # Page-wide classes ("single-post", "caption-dark") would mark
                # every block alike: they tell nothing about any one block.
                own |= cue[0]
            own_tokens = cue[1]
            if own_tokens:
                tokens = (own_tokens + cur_tokens)[:12]
        return own, own_tokens, tokens

    def start_block(self, el: etree._Element, kind: int, own: int, own_tokens: Tokens, tokens: Tokens) -> None:
        """A block-level element starts: the open block's text ends and the element opens a node."""
        cur_flags, cur_tokens = self.cur_flags, self.cur_tokens
        self.stack.append((kind, cur_flags, cur_tokens, 0))
        if self.pending:
            self.flush()
        else:
            self.pend_links = 0
        self.depth += 1
        n_tags = self.n_tags
        node = len(n_tags)
        n_texts = len(self.texts)
        tag = cast(str, el.tag)  # an element's (a "start" event)
        n_tags.append(tag if kind == K_PRE or tag in BLOCK_TAGS else clean_tag(tag))
        self.n_parents.append(self.node_stack[-1])
        self.n_depths.append(self.depth)
        self.n_first.append(n_texts)
        self.n_last.append(n_texts)
        self.n_tagc.append(0)
        self.n_flags.append(cur_flags | own)
        self.n_tokens.append(own_tokens)
        self.n_elements_of.append(el)
        self.node_stack.append(node)
        self.node_start.append(self.n_elements)
        if kind == K_PRE:
            self.pre_depth += 1
        self.cur_flags = cur_flags | own
        self.cur_tokens = tokens

    def start(self, el: etree._Element) -> int:
        """The walk's start event for `el`; says what to do with its children."""
        kind, own = self.info(el)
        if kind == K_SKIP and self.read_noscript and el.tag == "noscript":
            kind = K_BLOCK
        if kind == K_SKIP:
            if el.tag == "head":
                read_head(el, self.page)
            elif el.tag == "script" and el.text and (el.get("type") or "").endswith("ld+json"):
                read_jsonld(el.text, self.jsonld)
            elif el.tag == "meta":
                read_body_meta(el, self.page)
            self.stack.append(None)
            return SKIP_SUBTREE
        self.n_elements += 1
        self.pend_tags += 1
        cur_flags, cur_tokens = self.cur_flags, self.cur_tokens
        tokens = cur_tokens
        own_tokens: Tokens = ()
        keys = el.keys()
        if keys:
            read = self.attributes(el, keys, kind, own, cur_tokens)
            if read is None:  # an anchor mark, hidden, or a comment section
                self.stack.append(None)
                return SKIP_SUBTREE
            own, own_tokens, tokens = read
        if kind == K_INLINE:
            pending = self.pending
            if (
                self.separate_end
                and pending
                and not self.pre_depth
                and el.tag in SEPARATE_TAGS
                and pending[-1][-1] not in SEPARATE_JOINERS
            ):
                pending.append(" ")  # <code>a</code><code>b</code>: two values, not "ab"
            if own or own_tokens:
                self.stack.append((0, cur_flags, cur_tokens, 0))
                self.cur_flags = cur_flags | own
                self.cur_tokens = tokens
            else:
                self.stack.append(_PLAIN_STATE)  # nothing to restore at its end
        elif kind == K_BLOCK or kind == K_PRE:
            self.start_block(el, kind, own, own_tokens, tokens)
        elif kind == K_BR:
            if self.br_run and self.pending and not self.pre_depth:
                self.flush()
            else:
                self.pending.append("\n")
                self.br_run += 1
            self.stack.append(_PLAIN_STATE)
            return WALK_NO_TEXT
        else:
            if kind == K_LINK:
                if el.get("href") is not None:
                    own |= FLAG_LINK
                    self.link_depth += 1
                    self.pend_links += 1
            elif kind == K_IMG:
                src = el.get("src") or el.get("data-src") or el.get("data-lazy-src") or el.get("data-original")
                if src:
                    self.images.append(
                        (len(self.texts), src.strip(), el.get("alt") or "", el.get("width"), el.get("height"))
                    )
            self.stack.append((0, cur_flags, cur_tokens, own & FLAG_LINK))
            self.cur_flags = cur_flags | own
            self.cur_tokens = tokens
        return WALK_WITH_TEXT

    def end(self, el: etree._Element) -> None:
        """The walk's end event for `el` (its tail is read by the caller)."""
        state = self.stack.pop()
        if state is not None and el.tag in SEPARATE_TAGS:
            self.separate_end = True
        if state is not None and state is not _PLAIN_STATE:
            block_kind, parent_flags, parent_tokens, was_link = state
            if was_link:
                self.link_depth -= 1
            if block_kind:
                # Flush before restoring the parent's flags: the text belongs to this element.
                if self.pending:
                    self.flush()
                else:
                    self.pend_links = 0
                node = self.node_stack.pop()
                self.n_last[node] = len(self.texts)
                self.n_tagc[node] = self.n_elements - self.node_start.pop() + 1
                self.depth -= 1
                if block_kind == K_PRE:
                    self.pre_depth -= 1
            self.cur_flags, self.cur_tokens = parent_flags, parent_tokens

    def run(self) -> None:
        """One pass over lxml's events: start, text, (children), end, tail."""
        walker = self.walker
        start, end, add_text = self.start, self.end, self.add_text
        for event, el in walker:
            if event == "start":
                mode = start(el)
                if mode == SKIP_SUBTREE:
                    walker.skip_subtree()
                elif mode == WALK_WITH_TEXT:
                    add_text(el.text)
            elif event == "end":
                end(el)
                add_text(el.tail)
                if self.limit_hit:
                    break
            else:  # a comment or a processing instruction: only its tail is text
                add_text(el.tail)
        self.flush()
        _node_text_totals(self.page)


def walk_blocks(root: etree._Element, page: Page, include_comments: bool, skip_hidden: bool) -> tuple[int, bool]:
    """Fill `page`'s blocks, nodes, images and metadata; return (hidden elements skipped, limit hit).

    The reference implementation: `_walk.pyx` is its compiled twin over
    libxml2's nodes and must give the same Page.
    """
    walker = _Walker(root, page, include_comments, skip_hidden)
    walker.run()
    return walker.hidden_skipped, walker.limit_hit


def _node_text_totals(page: Page) -> None:
    """Fill per-node character and link-character totals from the blocks they hold."""
    # Prefix sums make each node's total one subtraction.
    acc_c = list(accumulate(page.chars, initial=0))
    acc_l = list(accumulate(page.link_chars, initial=0))
    first, last = page.node_first, page.node_last
    page.node_chars[:] = [acc_c[b] - acc_c[a] for a, b in zip(first, last)]
    page.node_link_chars[:] = [acc_l[b] - acc_l[a] for a, b in zip(first, last)]
