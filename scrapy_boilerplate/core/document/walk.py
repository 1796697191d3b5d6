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

from lxml import etree

from .cues import BODY_PROPS, COMMENT_SAFE_TAGS, CUE_CACHE, ROLE_FLAGS, class_cues
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
from .words import count_words

#: The walk stops adding blocks after this many (bounded memory and time).
MAX_BLOCKS = 20000
_PLAIN_STATE = (0, 0, (), 0)   # an element that changed no walk state


def walk_blocks(root, page, include_comments: bool, skip_hidden: bool) -> tuple:
    """Fill `page`'s blocks, nodes, images and metadata; return (hidden elements skipped, limit hit).

    The reference implementation: `_walk.pyx` is its compiled twin over
    libxml2's nodes and must give the same Page.
    """
    hidden_skipped = 0
    opened, read_noscript = page.opened, page.read_noscript
    # Unbound locals: this loop is the hot path of the whole extractor.
    texts, tags, nodes, depths = page.texts, page.tags, page.nodes, page.depths
    chars, words, link_chars_l = page.chars, page.words, page.link_chars
    links_l, tag_counts, flags_l, tokens_l = page.links, page.tag_counts, page.flags, page.tokens
    n_tags, n_parents, n_depths = page.node_tags, page.node_parents, page.node_depths
    n_first, n_last = page.node_first, page.node_last
    n_tagc, n_flags, n_tokens = page.node_tag_counts, page.node_flags, page.node_tokens
    images, jsonld = page.images, page.jsonld
    flag_link, flag_body = FLAG["link"], FLAG["body_prop"]

    # Per open element: None (skipped), _PLAIN_STATE (nothing to restore), or
    # (block kind or 0, parent's flags, parent's tokens, is a link)
    stack = []
    pending: list[str] = []         # text pieces of the open block
    pend_link = 0                   # characters of link text in the open block
    pend_links = 0                  # number of links started in the open block
    pend_tags = 0
    link_depth = 0
    pre_depth = 0
    node_stack = [-1]               # open block-level nodes
    cur_flags = 0
    cur_tokens: tuple = ()
    br_run = 0
    depth = 0
    limit_hit = False
    # The open block's text ends where a SEPARATE_TAGS element ended (no text after it yet).
    separate_end = False

    def flush():
        nonlocal pend_link, pend_links, pend_tags, br_run, limit_hit
        if pending:
            if pre_depth:
                text = "".join(pending).strip("\n")
                if not text.strip():
                    text = ""
                n_words = count_words(text)
            else:
                parts = "".join(pending).split()
                text = " ".join(parts)
                # count_words(text) without splitting the text a second time
                n_words = len(parts) if text.isascii() else count_words(text)
            pending.clear()
            if text:
                if len(texts) >= MAX_BLOCKS:
                    limit_hit = True
                else:
                    node = node_stack[-1]
                    texts.append(text)
                    tags.append(n_tags[node] if node >= 0 else "html")
                    nodes.append(node)
                    depths.append(depth)
                    n_chars_text = len(text)
                    chars.append(n_chars_text)
                    words.append(n_words)
                    lc = min(pend_link, n_chars_text)
                    link_chars_l.append(lc)
                    links_l.append(pend_links)
                    tag_counts.append(pend_tags)
                    flags_l.append(cur_flags)
                    tokens_l.append(cur_tokens)
        pend_link = pend_links = pend_tags = 0
        br_run = 0

    n_elements = 0                  # start tags seen so far (subtree tag counts by difference)
    node_start: list = []           # n_elements when each open node started
    cue_young = CUE_CACHE.young   # the hot path looks here first, at dict speed
    # Comments and processing instructions come as their own events (only in
    # trees handed in by the caller; our parser drops them): their tails are text.
    walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
    for event, el in walker:
        if event == "comment" or event == "pi":
            tail = el.tail
            if tail:
                separate_end = False
            if tail and not tail.isspace():
                pending.append(tail)
                if link_depth:
                    pend_link += len(tail.strip())
                br_run = 0
            elif tail and pending:
                pending.append(tail if pre_depth else " ")   # as for an element's tail
            continue
        if event == "start":
            info = TAG_INFO.get(el.tag)
            if info is None:
                info = tag_info(el.tag)
            kind, own = info
            if kind == K_SKIP and read_noscript and el.tag == "noscript":
                kind = K_BLOCK
            if kind == K_SKIP:
                if el.tag == "head":
                    read_head(el, page)
                elif el.tag == "script" and el.text and (el.get("type") or "").endswith("ld+json"):
                    read_jsonld(el.text, jsonld)
                elif el.tag == "meta":
                    read_body_meta(el, page)
                walker.skip_subtree()
                stack.append(None)
                continue
            n_elements += 1
            pend_tags += 1
            tokens = cur_tokens
            own_tokens = ()
            keys = el.keys()
            if keys:
                if kind == K_LINK and is_anchor_mark(el):
                    walker.skip_subtree()
                    stack.append(None)
                    continue
                if not SPECIAL_ATTRS.isdisjoint(keys):
                    if skip_hidden and el is not root and is_hidden(el, opened):
                        hidden_skipped += 1
                        walker.skip_subtree()
                        stack.append(None)
                        continue
                    role = el.get("role")
                    if role:
                        own |= ROLE_FLAGS.get(role, 0)
                    prop = el.get("itemprop")
                    if prop:
                        prop = prop.lower()
                        if prop in BODY_PROPS:
                            own |= flag_body
                        elif prop in MICRODATA_PROPS:
                            note_microdata(prop, el, page)
                cls = el.get("class") if "class" in keys else None
                idv = el.get("id") if "id" in keys else None
                if cls or idv:
                    cue = cue_young.get((idv, cls))
                    if cue is None:
                        cue = class_cues(idv, cls)
                    # Inside <pre>, a "comment" class (hljs-comment, "token comment") is a
                    # highlighter's code comment, not a comment section.
                    if cue[2] and not include_comments and not pre_depth and el.tag not in COMMENT_SAFE_TAGS:
                        walker.skip_subtree()
                        stack.append(None)
                        continue
                    if cue[0] and el.tag != "body" and el.tag != "html":
                        # Page-wide classes ("single-post", "caption-dark") would mark
                        # every block alike: they tell nothing about any one block.
                        own |= cue[0]
                    own_tokens = cue[1]
                    if own_tokens:
                        tokens = (own_tokens + cur_tokens)[:12]
            if kind == K_INLINE:
                if (separate_end and pending and not pre_depth and el.tag in SEPARATE_TAGS
                        and pending[-1][-1] not in SEPARATE_JOINERS):
                    pending.append(" ")   # <code>a</code><code>b</code>: two values, not "ab"
                if own or own_tokens:
                    stack.append((0, cur_flags, cur_tokens, 0))
                    cur_flags |= own
                    cur_tokens = tokens
                else:
                    stack.append(_PLAIN_STATE)   # nothing to restore at its end
            elif kind == K_BLOCK or kind == K_PRE:
                stack.append((kind, cur_flags, cur_tokens, 0))
                if pending:
                    flush()
                else:
                    pend_links = 0
                depth += 1
                node = len(n_tags)
                n_tags.append(el.tag if kind == K_PRE or el.tag in BLOCK_TAGS else clean_tag(el.tag))
                n_parents.append(node_stack[-1])
                n_depths.append(depth)
                n_first.append(len(texts))
                n_last.append(len(texts))
                n_tagc.append(0)
                n_flags.append(cur_flags | own)
                n_tokens.append(own_tokens)
                page.node_elements.append(el)
                node_stack.append(node)
                node_start.append(n_elements)
                if kind == K_PRE:
                    pre_depth += 1
                cur_flags |= own
                cur_tokens = tokens
            elif kind == K_BR:
                if br_run and pending and not pre_depth:
                    flush()
                else:
                    pending.append("\n")
                    br_run += 1
                stack.append(_PLAIN_STATE)
                continue
            else:
                if kind == K_LINK:
                    if el.get("href") is not None:
                        own |= flag_link
                        link_depth += 1
                        pend_links += 1
                elif kind == K_IMG:
                    src = el.get("src") or el.get("data-src") or el.get("data-lazy-src") or el.get("data-original")
                    if src:
                        images.append((len(texts), src.strip(), el.get("alt") or "", el.get("width"),
                                       el.get("height")))
                stack.append((0, cur_flags, cur_tokens, own & flag_link))
                cur_flags |= own
                cur_tokens = tokens
            # Text and tail handling is written out three times on purpose:
            # a helper call per element would cost more than the rest of the walk.
            text = el.text
            if text:
                separate_end = False
                if text.isspace():
                    if pending:
                        pending.append(text if pre_depth else " ")
                else:
                    pending.append(text)
                    if link_depth:
                        pend_link += len(text.strip())
                    br_run = 0
        else:  # end
            state = stack.pop()
            if state is not None and el.tag in SEPARATE_TAGS:
                separate_end = True
            if state is not None and state is not _PLAIN_STATE:
                block_kind, parent_flags, parent_tokens, was_link = state
                if was_link:
                    link_depth -= 1
                if block_kind:
                    # Flush before restoring the parent's flags: the text belongs to this element.
                    if pending:
                        flush()
                    else:
                        pend_links = 0
                    node = node_stack.pop()
                    n_last[node] = len(texts)
                    n_tagc[node] = n_elements - node_start.pop() + 1
                    depth -= 1
                    if block_kind == K_PRE:
                        pre_depth -= 1
                cur_flags, cur_tokens = parent_flags, parent_tokens
            tail = el.tail
            if tail:
                separate_end = False
                if tail.isspace():
                    # Whitespace between elements only matters inside a text run.
                    if pending:
                        pending.append(tail if pre_depth else " ")
                else:
                    pending.append(tail)
                    if link_depth:
                        pend_link += len(tail.strip())
                    br_run = 0
            if limit_hit:
                break
    flush()
    _node_text_totals(page)
    return hidden_skipped, limit_hit


def _node_text_totals(page) -> None:
    """Fill per-node character and link-character totals from the blocks they hold."""
    # Prefix sums make each node's total one subtraction.
    acc_c = list(accumulate(page.chars, initial=0))
    acc_l = list(accumulate(page.link_chars, initial=0))
    first, last = page.node_first, page.node_last
    page.node_chars[:] = [acc_c[b] - acc_c[a] for a, b in zip(first, last)]
    page.node_link_chars[:] = [acc_l[b] - acc_l[a] for a, b in zip(first, last)]
