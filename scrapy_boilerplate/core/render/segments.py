"""The inline markup of a block: links, code, emphasis and line breaks, read back from the tree.

The walk keeps each block's text only. For Markdown and HTML the extractor needs
what was around that text, so the element that owns a kept block (the walk's
node) is read again here: its inline content is cut into segments exactly where
the walk cut blocks (at block-level children and at two line breaks in a row),
skipping what the walk skipped. The k-th segment with text is the node's k-th
block. Each segment's plain text is checked against the block's text; a block
whose segment does not match is rendered from its text alone, so the markup can
never add or lose words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, cast

from lxml import etree

from ..document.cues import COMMENT_SAFE_TAGS, class_cues
from ..document.elements import (
    K_BLOCK,
    K_BR,
    K_PRE,
    K_SKIP,
    SEPARATE_JOINERS,
    SEPARATE_TAGS,
    TAG_INFO,
    is_anchor_mark,
    tag_info,
)
from ..document.hidden import is_hidden

if TYPE_CHECKING:
    from ..document.page import Page

# Inline elements whose markup the outputs keep, by the kind of markup.
INLINE_KINDS = {
    "a": "link",
    "code": "code",
    "kbd": "code",
    "samp": "code",
    "tt": "code",
    "em": "em",
    "i": "em",
    "cite": "em",
    "dfn": "em",
    "strong": "strong",
    "b": "strong",
}

#: Tokens of a segment: ("text", str), ("br",), ("open", kind, href or None), ("close", kind).
Token = (
    tuple[Literal["text"], str]
    | tuple[Literal["br"]]
    | tuple[Literal["open"], str, "str | None"]
    | tuple[Literal["close"], str]
)
BR: Token = ("br",)


def node_segments(page: Page, node: int) -> list[list[Token]]:
    """The token lists of the segments of `node`'s own inline content that hold text, in order."""
    root = page.node_elements[node]
    segments: list[list[Token]] = []
    tokens: list[Token] = []
    has_text = False
    br_run = 0
    separate_end = False  # as in the walk: <code>a</code><code>b</code> are two words

    def cut() -> None:
        nonlocal tokens, has_text, br_run
        if has_text:
            segments.append(tokens)
        tokens, has_text, br_run = [], False, 0

    def add_text(text: str | None) -> None:
        nonlocal has_text, br_run, separate_end
        if text:
            separate_end = False
            tokens.append(("text", text))
            if not text.isspace():
                has_text = True
                br_run = 0

    # One frame per open element: the kind of markup to close at its end, or None.
    stack: list[str | None] = []
    walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
    for event, el in walker:
        if event in ("comment", "pi"):
            add_text(el.tail)
            continue
        if event == "end":
            kind = stack.pop()
            if el is root:
                break
            if kind == "block":
                cut()  # the walk flushes at a block-level element's end too
            elif kind is not None and kind != "skip":
                tokens.append(("close", kind))
            if kind != "skip" and el.tag in SEPARATE_TAGS:
                separate_end = True
            add_text(el.tail)
            continue
        if el is root:
            stack.append(None)
            add_text(el.text)
            continue
        info = TAG_INFO.get(cast(str, el.tag)) or tag_info(el.tag)  # an element: comments and PIs went above
        kind_code = info[0]
        if kind_code == K_SKIP and page.read_noscript and el.tag == "noscript":
            kind_code = K_BLOCK  # read as the walk read it
        if kind_code == K_SKIP or walk_skips(page, el):
            walker.skip_subtree()
            stack.append("skip")
            continue
        if kind_code in (K_BLOCK, K_PRE):
            # Another node: its text is its own blocks'. A cut before and after it.
            cut()
            walker.skip_subtree()
            stack.append("block")
            continue
        if kind_code == K_BR:
            if br_run and has_text:
                cut()  # two line breaks in a row end the block, as in the walk
            else:
                tokens.append(BR)
                br_run += 1
            walker.skip_subtree()
            stack.append(None)
            continue
        if separate_end and has_text and el.tag in SEPARATE_TAGS and _last_char(tokens) not in SEPARATE_JOINERS:
            tokens.append(("text", " "))
        kind = INLINE_KINDS.get(el.tag if isinstance(el.tag, str) else "")
        if kind == "link":
            href = el.get("href")
            if href is None:
                kind = None
            else:
                tokens.append(("open", kind, href))
        elif kind is not None:
            tokens.append(("open", kind, None))
        stack.append(kind)
        add_text(el.text)
    cut()
    return segments


def _last_char(tokens: list[Token]) -> str:
    for token in reversed(tokens):
        if token[0] == "text":
            return token[1][-1]
        if token[0] == "br":
            return "\n"
    return ""


def walk_skips(page: Page, el: etree._Element) -> bool:
    """What the walk skips inside a node: hidden elements, anchor marks and comment sections."""
    keys = el.keys()
    if not keys:
        return False
    if page.skip_hidden and is_hidden(el, page.opened):
        return True
    if el.tag == "a" and is_anchor_mark(el):
        return True
    if not page.include_comments and ("class" in keys or "id" in keys):
        cue = class_cues(el.get("id") if "id" in keys else None, el.get("class") if "class" in keys else None)
        if cue[2] and el.tag not in COMMENT_SAFE_TAGS and next(el.iterancestors("pre"), None) is None:
            return True
    return False


def plain_text(tokens: list[Token]) -> str:
    """The text of a segment as the walk writes a block's text (whitespace collapsed)."""
    return " ".join("".join(t[1] if t[0] == "text" else "\n" for t in tokens if t[0] in ("text", "br")).split())


def lines_text(tokens: list[Token]) -> str:
    """The text of a segment with its line breaks kept: one line per <br>."""
    lines, line = [], []
    for token in tokens:
        if token[0] == "text":
            line.append(token[1])
        elif token is BR or token[0] == "br":
            lines.append(" ".join("".join(line).split()))
            line = []
    lines.append(" ".join("".join(line).split()))
    return "\n".join(text for text in lines if text)


class SegmentReader:
    """The segments of a page's nodes, each node read once."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self._by_node: dict[int, list[list[Token]]] = {}
        self._rank: dict[int, int] | None = None

    def tokens(self, block: int) -> list[Token] | None:
        """The inline tokens of `block`, or None when they cannot be read back exactly."""
        page = self.page
        node = page.nodes[block]
        if node < 0 or not page.node_elements or page.tags[block] == "pre":
            return None
        segments = self._by_node.get(node)
        if segments is None:
            try:
                segments = self._by_node[node] = node_segments(page, node)
            except Exception:  # noqa: BLE001 - odd trees: the block's text is enough
                segments = self._by_node[node] = []
        k = self._rank_of(block)
        if k >= len(segments) or plain_text(segments[k]) != page.texts[block]:
            return None
        return segments[k]

    def _rank_of(self, block: int) -> int:
        """How many blocks of the same node come before `block`."""
        if self._rank is None:
            counts: dict[int, int] = {}
            self._rank = {}
            for i, node in enumerate(self.page.nodes):
                self._rank[i] = counts.get(node, 0)
                counts[node] = self._rank[i] + 1
        return self._rank[block]
