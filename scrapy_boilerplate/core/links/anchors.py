"""The links of a walked page, each with what the page says of where it stands.

For each ``<a href>`` and ``<area href>`` (the elements Scrapy's ``LinkExtractor`` reads): its
request URL (urls.link_key), its text, rel tokens, the walk's flags and id/class tokens of its
block and of its own inline ancestors, its block and its nearest walked node. Link roles and the
page-type evidence read the same list, worked out once per page.
"""

from __future__ import annotations

import weakref
from itertools import islice
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from ..document.cues import class_cues
from ..document.elements import FLAG
from .urls import link_key

if TYPE_CHECKING:
    from collections.abc import Iterator

    from lxml import etree

    from ..document.page import Page

#: The links of a page that get a role, in document order: the rest are left out (the most of
#: the 5,000 pages of the development sets has 3,859; each link costs a URL join).
MAX_LINKS = 10_000
#: Inline ancestors of a link whose class names and ids it takes; pieces of its content (its
#: text's, its descendants for its first block and its icon's class names) read each time, and
#: more from the page's spare (a link left open around a whole page, 1,200 nodes, reads all of
#: it). A page may nest its links in spans, or in each other (libxml2 nests a link left open in
#: the next one), as deep as the parser goes (2,048 levels): each link would read the others again.
MAX_INLINE_ANCESTORS = 20
LINK_CONTENT, PAGE_SPARE_CONTENT = 20, 5_000

T = TypeVar("T")


class Anchor(NamedTuple):
    """An ``<a href>`` or ``<area href>`` of a walked page, and where it stands."""

    key: str | None  # link_key, None for non-http(s)
    href: str  # as written
    text: str
    rel: frozenset[str]  # rel tokens, lower case
    flags: int  # FLAG bits of its block (or node) and of its own inline ancestors
    tokens: frozenset[str]  # id/class tokens of the same
    block: int  # its block (-1: none, an image link between blocks)
    node: int  # its nearest walked node (-1: none)


# The anchors of a walked page, by base: overview detection (own_pager) and the roles read the same.
_ANCHORS: weakref.WeakKeyDictionary[Page, tuple[str | None, etree._Element, list[Anchor]]] = weakref.WeakKeyDictionary()


def page_anchors(page: Page, base: str | None) -> list[Anchor]:
    """The anchors of `page` (its first MAX_LINKS, in document order), their URLs resolved
    against `base`; [] for a page without a tree. Cached per page and base."""
    root = page.root
    if root is None:
        return []
    cached = _ANCHORS.get(page)
    if cached is not None and cached[0] == base and cached[1] is root:
        anchors: list[Anchor] = cached[2]
        return anchors
    anchors = _read_anchors(page, root, base)
    _ANCHORS[page] = (base, root, anchors)
    return anchors


def _read_anchors(page: Page, root: etree._Element, base: str | None) -> list[Anchor]:
    node_of = {el: i for i, el in enumerate(page.node_elements)}
    owners, texts, block_flags, block_tokens = page.nodes, page.texts, page.flags, page.tokens
    node_first, node_last, node_flags, node_tokens = page.node_first, page.node_last, page.node_flags, page.node_tokens
    own: dict[int, list[int]] = {}  # a node's own blocks, for the nodes that hold links
    frozen: dict[int, frozenset[str]] = {}  # a block's tokens, for the links that add none of their own
    nearest: dict[etree._Element, int] = {}  # an element's nearest walked node, once looked up
    content = _Content()
    comment_flag = FLAG["comment"]
    out: list[Anchor] = []
    for el in root.iter("a", "area"):
        href = el.get("href")
        if href is None:
            continue
        if len(out) == MAX_LINKS:
            break
        has_children = len(el) > 0
        if el.tag == "area":
            text = " ".join((el.get("alt") or "").split())
        elif has_children:
            text = " ".join("".join(content.read(el.itertext())).split())
        else:
            text = " ".join((el.text or "").split())
        flags, tokens = 0, set[str]()
        x: etree._Element | None = el
        node = -1
        for _ in range(MAX_INLINE_ANCESTORS + 1):
            if x is None:
                break
            n = node_of.get(x)
            if n is not None:
                node = n
                x = None
                break
            cls, idv = x.get("class"), x.get("id")
            if cls or idv:
                bits, toks, comment = class_cues(idv, cls)
                flags |= bits | (comment_flag if comment else 0)
                tokens.update(toks)
                if cls:
                    tokens.update(cls.lower().split())
            x = x.getparent()
        if x is not None:
            node = _nearest_node(x, node_of, nearest)
        block = -1
        inner = _inner_node(content.read(el.iterdescendants()), node_of) if has_children else None
        if inner is not None:
            # A link around whole blocks (a card that is one link): its first block.
            if node_last[inner] > node_first[inner]:
                block = node_first[inner]
            flags |= node_flags[inner]
        elif node >= 0:
            blocks = own.get(node)
            if blocks is None:
                # The node's own blocks lie within its span (its children's blocks between them).
                blocks = own[node] = [b for b in range(node_first[node], node_last[node]) if owners[b] == node]
            if len(blocks) == 1 or (blocks and not text):
                block = blocks[0]
            elif blocks:
                block = next((b for b in blocks if text in texts[b]), blocks[0])
        if not text and has_children:
            # An icon link: its icon's class names say where it goes ("fa-chevron-right").
            for d in content.read(el.iterdescendants()):
                cls = d.get("class") if isinstance(d.tag, str) else None
                if cls:
                    tokens.update(cls.lower().split())
        if block >= 0:
            flags |= block_flags[block]
            if tokens:
                tokens.update(block_tokens[block])
                all_tokens = frozenset(tokens)
            else:
                all_tokens = frozen.get(block) or frozen.setdefault(block, frozenset(block_tokens[block]))
        elif node >= 0:
            flags |= node_flags[node]
            tokens.update(node_tokens[node])
            all_tokens = frozenset(tokens)
        else:
            all_tokens = frozenset(tokens)
        rel = el.get("rel")
        rels = frozenset(rel.lower().split()) if rel else _NO_REL
        out.append(Anchor(link_key(href, base), href, text, rels, flags, all_tokens, block, node))
    return out


_NO_REL: frozenset[str] = frozenset()


def _inner_node(descendants: Iterator[etree._Element], node_of: dict[etree._Element, int]) -> int | None:
    for d in descendants:
        n = node_of.get(d)
        if n is not None:
            return n
    return None


class _Content:
    """What a page's links read of their content: LINK_CONTENT pieces each time, and more from the
    page's spare of PAGE_SPARE_CONTENT, as long as it lasts."""

    __slots__ = ("spare",)

    def __init__(self) -> None:
        self.spare = PAGE_SPARE_CONTENT

    def read(self, pieces: Iterator[T]) -> Iterator[T]:
        yield from islice(pieces, LINK_CONTENT)
        for piece in pieces:
            if self.spare <= 0:
                return
            self.spare -= 1
            yield piece


def _nearest_node(x: etree._Element, node_of: dict[etree._Element, int], nearest: dict[etree._Element, int]) -> int:
    """The walked node nearest above `x` (`x` itself if walked; -1 for none), each element on the
    way looked up once a page (`nearest`)."""
    path: list[etree._Element] = []
    node = -1
    at: etree._Element | None = x
    while at is not None:
        n = node_of.get(at)
        if n is None:
            n = nearest.get(at)
        if n is not None:
            node = n
            break
        path.append(at)
        at = at.getparent()
    for el in path:
        nearest[el] = node
    return node
