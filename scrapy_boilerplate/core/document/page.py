"""A page as the extractor sees it: blocks, nodes and metadata from one walk over its tree.

``build_page`` walks a parsed tree (``parse.py``) once with the compiled walk
(``_walk.pyx``) where it was built and passes its check, else with the Python
walk (``walk.py``); cues come from ``cues.py``, the <head> and JSON-LD from ``head.py``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from lxml import etree

from .. import speedups
from .head import document_lang
from .hidden import ToggleTargets
from .parse import parse_html
from .walk import MAX_BLOCKS, walk_blocks

if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import ModuleType

    from numpy.typing import NDArray

logger = logging.getLogger(__name__)


#: A block's or node's id/class tokens (lower case), its own and its ancestors' (at most 12).
Tokens = tuple[str, ...]
#: An image in the walk: (block index at the image, src, alt, width attribute, height attribute).
Image = tuple[int, str, str, str | None, str | None]


class PageArrays:
    """A page's numeric columns as read-only numpy arrays, each made once, when first read.

    The walk fills the list columns (`Page.chars`: Python ints, for reading one block) and
    nothing changes them afterwards; the features, the decoder and the selection read whole
    columns as vectors (`Page.arrays.chars`). Each array has the name of its column and one
    dtype: counts are float64 (they enter ratios and sums of floats), indices and flag bits
    are int64. It keeps the page's lists, not the page (no reference cycle).
    """

    def __init__(self, page: Page) -> None:
        self._page_columns = {name: getattr(page, name) for name in _ARRAY_COLUMNS}

    # np.fromiter, not np.asarray: a list of Python numbers of a known length and dtype needs no
    # discovery of its shape and type (17 to 35 % less time per column).
    def _floats(self, name: str) -> NDArray[np.float64]:
        column = self._page_columns[name]
        values = np.fromiter(column, np.float64, len(column))
        values.flags.writeable = False
        return values

    def _ints(self, name: str) -> NDArray[np.int64]:
        column = self._page_columns[name]
        values = np.fromiter(column, np.int64, len(column))
        values.flags.writeable = False
        return values

    # Blocks
    @cached_property
    def nodes(self) -> NDArray[np.int64]:
        return self._ints("nodes")

    @cached_property
    def depths(self) -> NDArray[np.int64]:
        return self._ints("depths")

    @cached_property
    def chars(self) -> NDArray[np.float64]:
        return self._floats("chars")

    @cached_property
    def words(self) -> NDArray[np.float64]:
        return self._floats("words")

    @cached_property
    def link_chars(self) -> NDArray[np.float64]:
        return self._floats("link_chars")

    @cached_property
    def links(self) -> NDArray[np.float64]:
        return self._floats("links")

    @cached_property
    def tag_counts(self) -> NDArray[np.float64]:
        return self._floats("tag_counts")

    @cached_property
    def flags(self) -> NDArray[np.int64]:
        return self._ints("flags")

    # Nodes
    @cached_property
    def node_parents(self) -> NDArray[np.int64]:
        return self._ints("node_parents")

    @cached_property
    def node_depths(self) -> NDArray[np.int64]:
        return self._ints("node_depths")

    @cached_property
    def node_first(self) -> NDArray[np.int64]:
        return self._ints("node_first")

    @cached_property
    def node_last(self) -> NDArray[np.int64]:
        return self._ints("node_last")

    @cached_property
    def node_chars(self) -> NDArray[np.float64]:
        return self._floats("node_chars")

    @cached_property
    def node_link_chars(self) -> NDArray[np.float64]:
        return self._floats("node_link_chars")

    @cached_property
    def node_tag_counts(self) -> NDArray[np.float64]:
        return self._floats("node_tag_counts")

    @cached_property
    def node_flags(self) -> NDArray[np.int64]:
        return self._ints("node_flags")


#: The columns `PageArrays` gives as numpy arrays (every numeric column of `Page`).
_ARRAY_COLUMNS = tuple(name for name, value in vars(PageArrays).items() if isinstance(value, cached_property))


@dataclass(eq=False)
class Page:
    """A page as blocks (parallel lists, one entry per block) plus nodes and metadata.

    The columns are plain lists the walk appends to: one entry per block in the block
    columns, one per node in the node_ columns. Each has one name, used in both its forms:
    `page.chars` is the list (one block's value as a Python int), `page.arrays.chars` the
    same column as a read-only numpy array (`PageArrays`: whole-column work), and
    `page.tag_positions("h2")` / `page.node_tag_positions("figcaption")` find a tag's blocks
    or nodes.
    """

    # Blocks: the text between two block-level tag boundaries, in document order.
    texts: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)  # the owner node's tag ("html": none)
    nodes: list[int] = field(default_factory=list)  # owner node index per block (-1: none)
    depths: list[int] = field(default_factory=list)  # block-level nesting depth
    chars: list[int] = field(default_factory=list)  # characters of the text
    words: list[int] = field(default_factory=list)  # words (count_words)
    link_chars: list[int] = field(default_factory=list)  # characters inside links
    links: list[int] = field(default_factory=list)  # links started in the block
    tag_counts: list[int] = field(default_factory=list)  # start tags seen since the previous block
    flags: list[int] = field(default_factory=list)  # FLAG bits of the block and its ancestors
    tokens: list[Tokens] = field(default_factory=list)  # id/class tokens of the block and ancestors
    # Nodes: one per block-level element, in document (pre-)order.
    node_tags: list[str] = field(default_factory=list)
    node_parents: list[int] = field(default_factory=list)  # -1: a top-level node
    node_depths: list[int] = field(default_factory=list)
    node_first: list[int] = field(default_factory=list)  # first block index inside the node
    node_last: list[int] = field(default_factory=list)  # one past the last block index
    node_chars: list[int] = field(default_factory=list)
    node_link_chars: list[int] = field(default_factory=list)
    node_tag_counts: list[int] = field(default_factory=list)
    node_flags: list[int] = field(default_factory=list)
    node_tokens: list[Tokens] = field(default_factory=list)  # the node's own id/class tokens
    node_elements: list[etree._Element] = field(default_factory=list)  # the lxml element of each node
    images: list[Image] = field(default_factory=list)
    # Metadata
    title: str | None = None  # <title>
    og: dict[str, str] = field(default_factory=dict)
    # itemprop (author, datepublished...) -> <body> elements
    microdata: dict[str, list[etree._Element]] = field(default_factory=dict)
    jsonld: dict[str, Any] = field(default_factory=dict)  # headline, articleBody, type, article, page...
    meta: dict[str, str] = field(default_factory=dict)  # <meta> name/property/itemprop -> first content
    lang: str | None = None
    base_url: str | None = None  # the page's URL, as the caller gave it
    base_href: str | None = None  # <base href>
    canonical_url: str | None = None  # <link rel="canonical" href>
    truncated: bool = False
    # How the walk was made (what the renderer must skip as the walk skipped it), and from where.
    include_comments: bool = False
    skip_hidden: bool = True
    opened: ToggleTargets | tuple[()] = field(default=(), repr=False, compare=False)  # ToggleTargets of the document
    read_noscript: bool = False  # <noscript> read as content (a page whose text is only there)
    root: etree._Element | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.texts)

    @cached_property
    def arrays(self) -> PageArrays:
        """The numeric columns as read-only numpy arrays (read after the walk: each is made once)."""
        return PageArrays(self)

    def tag_positions(self, tag: str) -> Iterator[int]:
        """The indices of the blocks whose owner node has `tag` (in `tags`)."""
        return _positions(self.tags, tag)

    def node_tag_positions(self, tag: str) -> Iterator[int]:
        """The indices of the nodes with `tag` (in `node_tags`)."""
        return _positions(self.node_tags, tag)

    @property
    def main_title(self) -> str | None:
        """The page's headline: og:title or JSON-LD headline, else <title>."""
        return self.og.get("title") or self.jsonld.get("headline") or self.title


def _positions(values: list[str], value: str) -> Iterator[int]:
    """The indices of `value` in `values`, with list.index's scan: most blocks and nodes are
    not looked at in Python."""
    at = -1
    while True:
        try:
            at = values.index(value, at + 1)
        except ValueError:
            return
        yield at


def build_page(root: etree._Element | None, *, include_comments: bool = False, base_url: str | None = None) -> Page:
    """Walk the tree once and return its blocks, nodes and metadata."""
    opened = ToggleTargets(root) if root is not None else ()
    page, hidden_skipped = _walk(root, include_comments, base_url, skip_hidden=True, opened=opened)
    if hidden_skipped and sum(page.chars) < 200:
        # Nearly everything was hidden (a page revealed by script): read it all.
        page, _ = _walk(root, include_comments, base_url, skip_hidden=False, opened=opened)
    if sum(page.chars) < 200 and root is not None and next(root.iter("noscript"), None) is not None:
        # Pages rendered by script may keep their server-rendered text for clients
        # without JavaScript in <noscript> (Discourse forums): read it when nothing else is there.
        with_noscript, _ = _walk(
            root, include_comments, base_url, skip_hidden=page.skip_hidden, opened=opened, read_noscript=True
        )
        if sum(with_noscript.chars) > sum(page.chars):
            page = with_noscript
    page.include_comments = include_comments
    page.root = root
    return page


def _walk(
    root: etree._Element | None,
    include_comments: bool,
    base_url: str | None,
    skip_hidden: bool,
    opened: ToggleTargets | tuple[()] = (),
    read_noscript: bool = False,
) -> tuple[Page, int]:
    page = Page(base_url=base_url, skip_hidden=skip_hidden, opened=opened, read_noscript=read_noscript)
    if root is None:
        return page, 0
    page.lang = document_lang(root)
    # The compiled walk never reads <noscript>: that rare second walk is the Python one.
    walk = _compiled.walk_blocks if _compiled is not None and not read_noscript else walk_blocks
    hidden_skipped, limit_hit = walk(root, page, include_comments, skip_hidden)
    if limit_hit:
        page.truncated = True
        logger.warning("page has more than %d blocks; the rest is ignored", MAX_BLOCKS)
    return page, hidden_skipped


# A page that takes the walk through most of its branches (head metadata, JSON-LD, cues,
# hidden and comment sections, links, images, line breaks, <pre>, CJK, odd whitespace).
_CHECK_PAGE = """<html lang="en"><head><title>T</title><meta property="og:title" content="OG">
<script type="application/ld+json">{"@type": "NewsArticle", "headline": "H"}</script></head>
<body class="single"><nav class="menu"><a href="/">Home</a> <a href="/x">X</a></nav>
<article class="entry-content post-1"><h1>Title</h1><p>One <b>two</b>\u00a0three<br><br>four
<a href="/a">link <i>text</i></a> tail. \u4e2d\u6587\u5b57</p><div hidden>no</div>
<figure><img src="/i.png" alt="A"><figcaption class="wp-caption">Cap</figcaption></figure>
<pre>  a\n  b</pre><ul><li>x</li><li class="related">y</li></ul></article>
<div id="comments">c</div><footer>F</footer></body></html>"""


def _checked_walk(compiled: ModuleType | None) -> ModuleType | None:
    """`compiled` when its walk gives the Python walk's Page on _CHECK_PAGE, else None.

    The compiled walk reads lxml's C structures, built against the lxml of the build
    machine: a different lxml must make it fall back, never give other pages.
    """
    if compiled is None:
        return None
    root = parse_html(_CHECK_PAGE)
    if root is None:  # never: the check page is a whole document
        return None
    expected, got = Page(), Page()
    try:
        same = compiled.walk_blocks(root, got, False, True) == walk_blocks(root, expected, False, True) and all(
            getattr(got, f) == getattr(expected, f) for f in expected.__dataclass_fields__
        )
    except Exception:  # a broken build must not break the package
        logger.warning("the compiled walk failed its check; using the Python walk", exc_info=True)
        return None
    if not same:
        logger.warning(
            "the compiled walk gives another page than the Python walk (lxml %s); using the Python walk",
            ".".join(map(str, etree.LXML_VERSION)),
        )
        return None
    return compiled


# Last, as the compiled walk imports the modules above: the compiled twin of walk_blocks, or None.
_compiled = _checked_walk(speedups.twin(walk_blocks.__module__))  # _walk.pyx, the twin of walk.py
