"""Parse once, pre-clean and blockify a page in a single iterative walk.

A *block* is the text between two block-level tag boundaries (boilerpipe,
Yao & Zuo): inline tags such as ``a``, ``b`` or ``span`` do not split it.
Every block remembers what the features need (text, link text, tag, depth,
id/class tokens of itself and its ancestors, semantic ancestors, position),
and every block-level element becomes a *node* with subtree totals, so
region scores (Readability, TextSweeper) come from the same walk.

Pre-cleaning never mutates the tree: unwanted subtrees (scripts, hidden
elements, dialogs, comment sections...) are skipped during the walk, so a
tree handed in by the caller (Scrapy's ``response.selector``) stays intact.
"""

from __future__ import annotations

import codecs
import json
import logging
import re
from dataclasses import dataclass, field
from itertools import accumulate

from lxml import etree

from . import speedups
from .textstats import count_words

logger = logging.getLogger(__name__)

#: Input beyond this many bytes is cut before parsing (bounded cost).
MAX_INPUT_BYTES = 8 * 1024 * 1024
#: The walk stops adding blocks after this many (bounded memory and time).
MAX_BLOCKS = 20000

BLOCK_TAGS = frozenset(
    """p div section article main header footer nav aside h1 h2 h3 h4 h5 h6
    li ul ol dl dt dd table tr td th thead tbody tfoot caption blockquote pre
    figure figcaption form fieldset legend address hr center details summary
    body html menu dialog noscript iframe option select textarea""".split()
)
HEADING_TAGS = frozenset("h1 h2 h3 h4 h5 h6".split())
# Subtrees that never hold readable main content.
SKIP_TAGS = frozenset(
    """script style noscript template svg math iframe object embed canvas
    select option textarea input dialog head map audio video source track""".split()
)

# Semantic-ancestor bits. A block's flags are the OR of the bits of all its
# ancestors, so "inside an <aside>" is one bit test.
FLAG_NAMES = (
    "article", "main", "nav", "aside", "header", "footer", "figure", "li",
    "table", "blockquote", "pre", "form", "link", "heading", "body_prop",
    "comment", "positive", "negative", "share", "related", "caption", "meta",
    "ad", "cookie", "newsletter", "title_like", "code",
)
FLAG = {name: 1 << i for i, name in enumerate(FLAG_NAMES)}
TAG_FLAGS = {
    "article": FLAG["article"], "main": FLAG["main"], "nav": FLAG["nav"],
    "aside": FLAG["aside"], "header": FLAG["header"], "footer": FLAG["footer"],
    "figure": FLAG["figure"], "figcaption": FLAG["caption"] | FLAG["figure"],
    "li": FLAG["li"], "table": FLAG["table"], "blockquote": FLAG["blockquote"],
    "pre": FLAG["pre"] | FLAG["code"], "code": FLAG["code"], "form": FLAG["form"],
    "h1": FLAG["heading"], "h2": FLAG["heading"], "h3": FLAG["heading"],
    "h4": FLAG["heading"], "h5": FLAG["heading"], "h6": FLAG["heading"],
    "menu": FLAG["nav"], "button": FLAG["form"], "label": FLAG["form"],
}
ROLE_FLAGS = {
    "main": FLAG["main"], "article": FLAG["article"], "navigation": FLAG["nav"],
    "complementary": FLAG["aside"], "banner": FLAG["header"],
    "contentinfo": FLAG["footer"],
}
# id/class cues, matched on the lower-cased "id class" string of an element.
CUE_PATTERNS = {
    "positive": r"article|body|content|entry|h-?entry|main|post|text|blog|story|prose|rich-?text",
    "negative": r"sidebar|widget|banner|masthead|promo|sponsor|skyscraper|outbrain|taboola|"
                r"breadcrumb|pagination|pager|menu|navbar|^nav$|footer|header|toolbar|popup|modal|"
                r"^tags?$|taglist|categor|archive|author|byline|avatar|profile|rating|login|signup",
    "share": r"share|sharing|social|facebook|twitter|whatsapp|linkedin|pinterest|print",
    "related": r"related|recommend|morestories|readmore|also|popular|trending|teaser|"
               r"mostread|mostviewed|nextpost|prevpost|youmay|suggest",
    "caption": r"caption|credit|wp-caption|photo-?info|image-?info",
    "meta": r"meta|date|time|posted|published|dateline|byline|tools|reprint",
    "ad": r"^ads?$|advert|adslot|adunit|^dfp$|^gpt$|sponsored|nativead",
    "cookie": r"cookie|consent|gdpr|privacybanner|^cmp$",
    "newsletter": r"newsletter|subscribe|subscription|signup|optin|mailing",
    "title_like": r"title|headline|dek|standfirst|subtitle|subhead|summary|lede|intro|excerpt",
}
CUE_RES = [(FLAG[name], re.compile(pattern)) for name, pattern in CUE_PATTERNS.items()]
# Comment sections are skipped unless the caller asks for them.
COMMENT_RE = re.compile(
    r"(?:^|\s)(?:comments?|comment-?list|commentlist|comments?[-_](?:area|section|wrapper|"
    r"container|list|block|thread|form)|disqus_thread|disqus|respond|comment-respond|"
    r"replies|discussion|talkback)(?:$|\s)"
)
BODY_PROP_RE = re.compile(r"^(?:articlebody|entrycontent|postcontent|postbody|storybody|articlecontent|"
                          r"maincontent|posttext|contentbody|articletext|storytext|entrybody)$")


def _required_literals(patterns) -> list[str]:
    """A literal that every match of each alternative contains (the cue patterns are plain words
    with optional characters, anchors and word boundaries only)."""
    literals = set()
    for pattern in patterns:
        body = pattern.removeprefix("^(?:").removesuffix(")$")
        for alt in body.split("|"):
            alt = re.sub(r"\\b|\^|\$|\(\?:|\)", "", alt)
            alt = re.sub(r".\?", "", alt)      # an optional character is not required
            if alt:
                literals.add(alt)
    return sorted(literals)


def _contains_any_regex(words) -> str:
    """A trie-shaped regex matching any of `words` as a substring: far faster than a flat alternation."""
    trie: dict = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = True

    def build(node) -> str:
        if "" in node:          # a word ends here: its prefix is enough for "contains"
            return ""
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items())]
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return build(trie)


# Matches every name in which some cue could match (the cues' required literals, as a trie):
# names and tokens without any cue, the great majority, cost one fast scan.
GATE_RE = re.compile(_contains_any_regex(_required_literals(list(CUE_PATTERNS.values()) + [BODY_PROP_RE.pattern])))
COMMENT_WORDS = ("omment", "disqus", "respond", "repl", "discussion", "talkback")
COMMENT_WORDS_RE = re.compile("|".join(COMMENT_WORDS))   # a cheap test before COMMENT_RE
TOKEN_SPLIT_RE = re.compile(r"[^a-z]+")
# Classes that WordPress (post_class, body_class) and similar systems derive from a post's
# taxonomy and id: tag-*, category-*, post-1234, postid-1234, page-id-12.
TAXONOMY_CLASS_RE = re.compile(r"(?:tag|category|post_tag|postid|page-id)-|post-\d+$", re.IGNORECASE)
META_CHARSET_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.I)
XML_ENCODING_RE = re.compile(rb"""^\s*<\?xml[^>]+encoding\s*=\s*["']([a-zA-Z0-9_.:-]+)""", re.I)


BODY_PROPS = frozenset(("articlebody", "text", "articletext"))
# Element kinds for the walk, looked up once per tag name.
K_INLINE, K_BLOCK, K_SKIP, K_BR, K_LINK, K_IMG, K_PRE = range(7)
_PLAIN_STATE = (0, 0, (), 0)   # an element that changed no walk state


def _clean_tag(tag) -> str:
    """Lower-case local name of a tag ('{ns}Div' -> 'div'); '' for comments and PIs."""
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1].rsplit(":", 1)[-1].lower()


def _tag_info(tag) -> tuple:
    """(kind, flag bits) of a tag name; cached in TAG_INFO."""
    name = _clean_tag(tag)
    if not name:
        kind = K_SKIP
    elif name in SKIP_TAGS:
        kind = K_SKIP
    elif name == "pre":
        kind = K_PRE
    elif name in BLOCK_TAGS:
        kind = K_BLOCK
    elif name == "br":
        kind = K_BR
    elif name == "a":
        kind = K_LINK
    elif name == "img":
        kind = K_IMG
    else:
        kind = K_INLINE
    info = (kind, TAG_FLAGS.get(name, 0))
    if isinstance(tag, str) and len(TAG_INFO) < 5000:
        TAG_INFO[tag] = info
    return info


TAG_INFO: dict = {}

SPECIAL_ATTRS = frozenset(("hidden", "aria-hidden", "aria-modal", "style", "role", "itemprop"))
HIDDEN_ROLES = frozenset(("dialog", "alertdialog", "tooltip", "menu", "menubar"))
HIDDEN_STYLE_RE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
# A box collapsed to no height whose content is cut off or transparent: a bar or
# panel that a script opens (a site's promo bar). Neither alone hides: opacity:0 is
# the start of many fade-in animations, height:0 of many boxes that grow.
ZERO_HEIGHT_RE = re.compile(r"(?:^|[;\s])(?:max-)?height\s*:\s*0(?:px|em|rem|%)?\s*(?:!important\s*)?(?:;|$)", re.I)
CLIPPED_RE = re.compile(r"overflow(?:-y)?\s*:\s*hidden|opacity\s*:\s*0(?:\.0*)?\s*(?:!important\s*)?(?:;|$)", re.I)
COMMENT_SAFE_TAGS = frozenset(("body", "html", "article", "main"))


def _hidden_style(style: str) -> bool:
    """A style that hides its element: display:none, visibility:hidden, or a clipped zero-height box."""
    if HIDDEN_STYLE_RE.search(style) is not None:
        return True
    return ZERO_HEIGHT_RE.search(style) is not None and CLIPPED_RE.search(style) is not None


def _is_hidden(el, opened=()) -> bool:
    """Hidden from readers: `hidden`, aria-hidden, modal dialogs and tooltips, hiding styles.

    A box that is hidden only until a reader clicks is read: its id is in `opened`, the ids
    that controls on the page open (`aria-controls`, `data-target`), or it is a tab panel or
    has an accordion-like class. Modal dialogs and tooltips stay hidden even then.
    """
    role = el.get("role")
    modal = el.get("aria-modal")
    # A dialog declared non-modal is a panel on the page, not a pop-up over it.
    if modal == "true" or (role in HIDDEN_ROLES and not (role == "dialog" and modal == "false")):
        return True
    if el.get("hidden") is not None:
        # React/Next.js streaming puts server-rendered segments in <div hidden id="S:n">
        # and reveals them with a script: that text is on the page.
        hidden = not (el.get("id") or "").startswith("S:")
    elif el.get("aria-hidden") == "true":
        hidden = True
    else:
        style = el.get("style")
        hidden = bool(style) and _hidden_style(style)
    if not hidden:
        return False
    if opened:
        idv = el.get("id")
        if idv and idv in opened:
            return False
    # Tab panels, accordion and FAQ answers, "read more" text: hidden until a click that a
    # script handles, without aria-controls to say so, and on the page all along.
    if role == "tabpanel":
        return False
    cls = el.get("class")
    return not (cls and _opens_on_click(cls))


#: Class-name words of boxes that a click opens (split at non-letters, lower case).
OPENS_ON_CLICK_WORDS = frozenset(("accordion", "answer", "collapse", "collapsible", "expandable",
                                  "faq", "readmore", "spoiler"))


def _opens_on_click(cls: str) -> bool:
    return not OPENS_ON_CLICK_WORDS.isdisjoint(TOKEN_SPLIT_RE.split(cls.lower()))


class ToggleTargets:
    """The ids that controls on a page open (`aria-controls`, `data-target`,
    `data-bs-target`), read from the whole document on the first question: most
    pages never ask, since few hidden elements have an id."""

    __slots__ = ("_ids", "_root")

    def __init__(self, root) -> None:
        self._root = root
        self._ids = None

    def __bool__(self) -> bool:
        return self._root is not None

    def __contains__(self, idv: str) -> bool:
        if self._ids is None:
            ids = set()
            for value in self._root.getroottree().xpath("//@aria-controls | //@data-target | //@data-bs-target"):
                for target in value.split():
                    ids.add(target.removeprefix("#"))
            self._ids = frozenset(ids)
        return idv in self._ids


@dataclass(eq=False)
class Page:
    """A page as blocks (parallel lists, one entry per block) plus nodes and metadata."""

    texts: list = field(default_factory=list)
    tags: list = field(default_factory=list)
    nodes: list = field(default_factory=list)        # owner node index per block
    depths: list = field(default_factory=list)
    chars: list = field(default_factory=list)
    words: list = field(default_factory=list)
    link_chars: list = field(default_factory=list)
    links: list = field(default_factory=list)
    tag_counts: list = field(default_factory=list)   # start tags seen since the previous block
    flags: list = field(default_factory=list)
    tokens: list = field(default_factory=list)       # id/class tokens of the block and ancestors
    # Nodes: one per block-level element, in document (pre-)order.
    node_tags: list = field(default_factory=list)
    node_parents: list = field(default_factory=list)
    node_depths: list = field(default_factory=list)
    node_first: list = field(default_factory=list)   # first block index inside the node
    node_last: list = field(default_factory=list)    # one past the last block index
    node_chars: list = field(default_factory=list)
    node_link_chars: list = field(default_factory=list)
    node_tag_counts: list = field(default_factory=list)
    node_flags: list = field(default_factory=list)
    node_tokens: list = field(default_factory=list)
    node_elements: list = field(default_factory=list)   # the lxml element of each node
    # Images: (block index at the image, src, alt)
    images: list = field(default_factory=list)
    # Metadata
    title: str | None = None           # <title>
    og: dict = field(default_factory=dict)
    jsonld: dict = field(default_factory=dict)   # headline, articleBody, type, description
    lang: str | None = None
    base_url: str | None = None        # the page's URL, as the caller gave it
    base_href: str | None = None       # <base href>
    canonical_url: str | None = None   # <link rel="canonical" href>
    truncated: bool = False
    # How the walk was made (what the renderer must skip as the walk skipped it), and from where.
    include_comments: bool = False
    skip_hidden: bool = True
    opened: object = field(default=(), repr=False, compare=False)   # ToggleTargets of the document
    read_noscript: bool = False        # <noscript> read as content (a page whose text is only there)
    root: object = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def main_title(self) -> str | None:
        """The page's headline: og:title or JSON-LD headline, else <title>."""
        return self.og.get("title") or self.jsonld.get("headline") or self.title


def sniff_encoding(data: bytes) -> str:
    """Pick an encoding: BOM, then valid UTF-8, then <meta charset> / XML declaration, then cp1252.

    Bytes that decode as UTF-8 are UTF-8 whatever the page declares: pages are
    often re-saved as UTF-8 with a stale <meta charset>, and non-ASCII text in a
    legacy encoding almost never forms valid UTF-8 by chance.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        return "utf-8"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        # A page cut mid-character is still UTF-8.
        if exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            return "utf-8"
    head = data[:4096]
    match = META_CHARSET_RE.search(head) or XML_ENCODING_RE.search(head)
    if match:
        name = match.group(1).decode("ascii", "replace").lower()
        try:
            name = codecs.lookup(name).name
        except LookupError:
            name = None
        # Pages that claim latin-1 or ASCII mean windows-1252, as browsers read them.
        if name in ("latin-1", "iso8859-1", "ascii"):
            name = "cp1252"
        if name == "gb2312":
            name = "gb18030"   # its superset, as browsers read it
        if name and not name.startswith("utf-"):
            return name
    return "cp1252"


def to_unicode(data: bytes) -> str:
    if not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-8")   # the common case: one decode, no sniffing
        except UnicodeDecodeError:
            pass
    encoding = sniff_encoding(data)
    try:
        return data.decode(encoding, errors="replace")
    except LookupError:
        return data.decode("utf-8", errors="replace")


_PARSER = etree.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True,
                           no_network=True, default_doctype=False)


def parse_html(html) -> etree._Element | None:
    """Parse str or bytes into an lxml tree; None when there is nothing to parse."""
    if isinstance(html, bytes | bytearray | memoryview):
        data = bytes(html)
        if len(data) > MAX_INPUT_BYTES:
            logger.warning("HTML of %d bytes cut to %d bytes before parsing", len(data), MAX_INPUT_BYTES)
            data = data[:MAX_INPUT_BYTES]
        utf8 = _valid_utf8(data)
        if utf8 is not None:
            # The common case: parse the bytes as they are, no decode/encode round trip.
            return _parse_utf8(utf8)
        text = to_unicode(data)
    elif isinstance(html, str):
        text = html
        if len(text) > MAX_INPUT_BYTES:
            logger.warning("HTML of %d characters cut to %d before parsing", len(text), MAX_INPUT_BYTES)
            text = text[:MAX_INPUT_BYTES]
    else:
        raise TypeError(f"expected str or bytes, got {type(html).__name__}")
    if "\x00" in text:
        text = text.replace("\x00", "")
    text = text.lstrip("\ufeff")
    if not text or text.isspace():   # (not text.strip(), without copying the page)
        return None
    # Re-encode as UTF-8: lxml refuses str input with an XML encoding declaration.
    return _parse_utf8(text.encode("utf-8", errors="replace"))


def _valid_utf8(data: bytes) -> bytes | None:
    """`data` without a UTF-8 BOM when it is valid UTF-8 (and not UTF-16), else None."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data if (_utf8.is_utf8(data) if _utf8 is not None else _is_utf8(data)) else None


def _is_utf8(data: bytes) -> bool:
    """Valid UTF-8 as Python's strict decoder says (the reference for the compiled _utf8)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _parse_utf8(data: bytes):
    if b"\x00" in data:
        data = data.replace(b"\x00", b"")
    while data.startswith(b"\xef\xbb\xbf"):   # repeated BOMs
        data = data[3:]
    if not data or data.isspace():   # (not data.strip(), without copying the page)
        return None
    try:
        return etree.fromstring(data, _PARSER)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None


def to_element_type_error(html) -> bool:
    """True when `html` is of no type the extractor accepts."""
    return not (isinstance(html, etree._Element) or hasattr(html, "root"))


def to_element(html):
    """Accept str, bytes, a parsel Selector or an lxml element; return an lxml element or None."""
    if isinstance(html, etree._Element):
        return html
    root = getattr(html, "root", None)   # parsel.Selector
    if isinstance(root, etree._Element):
        return root
    if root is not None and hasattr(html, "xpath"):
        return None   # a Selector over JSON or text
    return parse_html(html)


class BoundedCache:
    """A dict-like cache of at most about 2 x `limit` entries, approximately LRU.

    Two generations: new entries go into the young one; when it is full it
    becomes the old one and the previous old one is forgotten. An entry found
    in the old generation moves back into the young one, so names in use
    ("menu-item", "entry-content") survive while one-off names (hashes, ids)
    age out. Emptying the cache instead would make every later page pay for
    the class names of the whole web again.
    """

    __slots__ = ("limit", "young", "old")

    def __init__(self, limit: int):
        self.limit = limit
        self.young: dict = {}
        self.old: dict = {}

    def get(self, key):
        value = self.young.get(key)
        if value is None:
            value = self.old.get(key)
            if value is not None:
                self.put(key, value)
        return value

    def put(self, key, value) -> None:
        if len(self.young) >= self.limit:
            self.old = self.young
            self.young = {}
        self.young[key] = value

    def clear(self) -> None:
        self.young.clear()
        self.old.clear()

    def __len__(self) -> int:
        return len(self.young) + len(self.old)


_CUE_CACHE = BoundedCache(50_000)
_UNIT_CACHE = BoundedCache(100_000)
_KEY_CACHE = BoundedCache(100_000)


def _key_bits(key: str) -> int:
    """Cue bits of one lower-case token or joined token pair; cached (tokens repeat across sites)."""
    bits = _KEY_CACHE.young.get(key)
    if bits is None:
        bits = _KEY_CACHE.get(key)
    if bits is None:
        bits = 0
        if GATE_RE.search(key) is None:   # most tokens hold no cue: one scan instead of twelve
            _KEY_CACHE.put(key, 0)
            return 0
        for bit, rx in CUE_RES:
            if rx.search(key):
                bits |= bit
        if BODY_PROP_RE.search(key):
            bits |= FLAG["body_prop"]
        _KEY_CACHE.put(key, bits)
    return bits


def _unit_cues(unit: str) -> tuple:
    """(flag bits, tokens, is-comment-section) of one class name or id; cached across pages.

    Cues are matched on the name's tokens and on adjacent token pairs joined
    ("read-more" -> "read", "more", "readmore"), so the regexes run once per
    distinct token rather than once per distinct class name.
    """
    cue = _UNIT_CACHE.young.get(unit) or _UNIT_CACHE.get(unit)
    if cue is None and TAXONOMY_CLASS_RE.match(unit):
        # The post's own tags and categories ("tag-creditshelf", "category-comments")
        # are words of the site's authors, not of its template.
        cue = (0, (), False)
        _UNIT_CACHE.put(unit, cue)
    elif cue is None:
        text = unit.lower()
        parts = TOKEN_SPLIT_RE.split(text)   # may hold empty strings
        bits = 0
        # One unanchored scan of the whole name first: most names hold no cue at all.
        if GATE_RE.search("".join(parts)) is not None:
            parts = [t for t in parts if t]
            known = _KEY_CACHE.young
            for key in parts + [a + b for a, b in zip(parts, parts[1:])]:
                key_bits = known.get(key)
                bits |= key_bits if key_bits is not None else _key_bits(key)
        comment = COMMENT_WORDS_RE.search(text) is not None and COMMENT_RE.search(text) is not None
        if comment:
            bits |= FLAG["comment"]
        cue = (bits, tuple([t for t in parts if 1 < len(t) < 25]), comment)
        _UNIT_CACHE.put(unit, cue)
    return cue


def _class_cues(idv, cls) -> tuple:
    """Cues of an element's id and class names combined; cached per (id, class) pair.

    The reference for the compiled walk's class_cues (a page from a new site brings about 150
    new pairs, so the uncached path counts)."""
    key = (idv, cls)
    cue = _CUE_CACHE.young.get(key) or _CUE_CACHE.get(key)
    if cue is None:
        bits, tokens, comment = 0, (), False
        units = cls.split() if cls else []
        if idv:
            units.append(idv)
        known = _UNIT_CACHE.young
        unit_cues = _unit_cues if _compiled is None else _compiled.unit_cues
        for unit in units[:16]:
            b, t, c = known.get(unit) or unit_cues(unit)
            bits |= b
            tokens += t
            comment = comment or c
        cue = (bits, tokens, comment)
        _CUE_CACHE.put(key, cue)
    return cue


def _read_jsonld(text: str, jsonld: dict) -> None:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return
    stack, seen = [data], 0
    while stack and seen < 200:
        item = stack.pop()
        seen += 1
        if isinstance(item, list):
            stack.extend(item[:50])
        elif isinstance(item, dict):
            kind = item.get("@type")
            if isinstance(kind, list):
                kind = kind[0] if kind else None
            body = item.get("articleBody") or item.get("text") if kind else item.get("articleBody")
            if isinstance(body, str) and len(body) > len(jsonld.get("articleBody", "")):
                jsonld["articleBody"] = body
            if isinstance(kind, str):
                if "type" not in jsonld and kind not in ("WebSite", "Organization", "BreadcrumbList",
                                                          "WebPage", "ImageObject", "Person"):
                    jsonld["type"] = kind
                jsonld.setdefault("types", []).append(kind)
            headline = item.get("headline")
            if isinstance(headline, str) and "headline" not in jsonld:
                jsonld["headline"] = headline
            graph = item.get("@graph")
            if graph is not None:
                stack.append(graph)
            main = item.get("mainEntity")
            if isinstance(main, dict | list):
                stack.append(main)


def build_page(root, *, include_comments: bool = False, base_url: str | None = None) -> Page:
    """Walk the tree once and return its blocks, nodes and metadata."""
    opened = ToggleTargets(root) if root is not None else ()
    page, hidden_skipped = _walk(root, include_comments, base_url, skip_hidden=True, opened=opened)
    if hidden_skipped and sum(page.chars) < 200:
        # Nearly everything was hidden (a page revealed by script): read it all.
        page, _ = _walk(root, include_comments, base_url, skip_hidden=False, opened=opened)
    if sum(page.chars) < 200 and root is not None and next(root.iter("noscript"), None) is not None:
        # Pages rendered by script may keep their server-rendered text for clients
        # without JavaScript in <noscript> (Discourse forums): read it when nothing else is there.
        with_noscript, _ = _walk(root, include_comments, base_url, skip_hidden=page.skip_hidden,
                                 opened=opened, read_noscript=True)
        if sum(with_noscript.chars) > sum(page.chars):
            page = with_noscript
    page.include_comments = include_comments
    page.root = root
    return page


def _walk(root, include_comments: bool, base_url, skip_hidden: bool, opened=(), read_noscript: bool = False):
    page = Page(base_url=base_url, skip_hidden=skip_hidden, opened=opened, read_noscript=read_noscript)
    if root is None:
        return page, 0
    page.lang = root.getroottree().getroot().get("lang")
    # The compiled walk never reads <noscript>: that rare second walk is the Python one.
    walk_blocks = _compiled.walk_blocks if _compiled is not None and not read_noscript else _walk_blocks
    hidden_skipped, limit_hit = walk_blocks(root, page, include_comments, skip_hidden)
    if limit_hit:
        page.truncated = True
        logger.warning("page has more than %d blocks; the rest is ignored", MAX_BLOCKS)
    return page, hidden_skipped


def _walk_blocks(root, page: Page, include_comments: bool, skip_hidden: bool) -> tuple:
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
    cue_young = _CUE_CACHE.young   # the hot path looks here first, at dict speed
    # Comments and processing instructions come as their own events (only in
    # trees handed in by the caller; our parser drops them): their tails are text.
    walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
    for event, el in walker:
        if event == "comment" or event == "pi":
            tail = el.tail
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
                info = _tag_info(el.tag)
            kind, own = info
            if kind == K_SKIP and read_noscript and el.tag == "noscript":
                kind = K_BLOCK
            if kind == K_SKIP:
                if el.tag == "head":
                    _read_head(el, page)
                elif el.tag == "script" and el.text and (el.get("type") or "").endswith("ld+json"):
                    _read_jsonld(el.text, jsonld)
                walker.skip_subtree()
                stack.append(None)
                continue
            n_elements += 1
            pend_tags += 1
            tokens = cur_tokens
            own_tokens = ()
            keys = el.keys()
            if keys:
                if not SPECIAL_ATTRS.isdisjoint(keys):
                    if skip_hidden and el is not root and _is_hidden(el, opened):
                        hidden_skipped += 1
                        walker.skip_subtree()
                        stack.append(None)
                        continue
                    role = el.get("role")
                    if role:
                        own |= ROLE_FLAGS.get(role, 0)
                    prop = el.get("itemprop")
                    if prop and prop.lower() in BODY_PROPS:
                        own |= flag_body
                cls = el.get("class") if "class" in keys else None
                idv = el.get("id") if "id" in keys else None
                if cls or idv:
                    cue = cue_young.get((idv, cls))
                    if cue is None:
                        cue = _class_cues(idv, cls)
                    if cue[2] and not include_comments and el.tag not in COMMENT_SAFE_TAGS:
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
                n_tags.append(el.tag if kind == K_PRE or el.tag in BLOCK_TAGS else _clean_tag(el.tag))
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


def _node_text_totals(page: Page) -> None:
    """Fill per-node character and link-character totals from the blocks they hold."""
    # Prefix sums make each node's total one subtraction.
    acc_c = list(accumulate(page.chars, initial=0))
    acc_l = list(accumulate(page.link_chars, initial=0))
    first, last = page.node_first, page.node_last
    page.node_chars[:] = [acc_c[b] - acc_c[a] for a, b in zip(first, last)]
    page.node_link_chars[:] = [acc_l[b] - acc_l[a] for a, b in zip(first, last)]


def _read_head(head, page: Page) -> None:
    """Title, Open Graph tags, JSON-LD, the base and the canonical URL from <head>."""
    for el in head.iter("title", "meta", "script", "base", "link"):
        tag = el.tag
        if tag == "title":
            if page.title is None and el.text:
                page.title = " ".join(el.text.split())
        elif tag == "meta":
            prop = (el.get("property") or el.get("name") or "").lower()
            content = el.get("content")
            if not content:
                continue
            if prop.startswith("og:"):
                page.og.setdefault(prop[3:], " ".join(content.split()))
            elif prop in ("description", "twitter:title", "twitter:description"):
                page.og.setdefault(prop.replace("twitter:", "tw_"), " ".join(content.split()))
        elif tag == "script":
            if (el.get("type") or "").endswith("ld+json") and el.text:
                _read_jsonld(el.text, page.jsonld)
        elif tag == "base":
            if page.base_href is None and el.get("href"):
                page.base_href = el.get("href")
        elif tag == "link":
            if page.canonical_url is None and "canonical" in (el.get("rel") or "").lower().split():
                page.canonical_url = (el.get("href") or "").strip() or None


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


def _checked_walk(compiled):
    """`compiled` when its walk gives the Python walk's Page on _CHECK_PAGE, else None.

    The compiled walk reads lxml's C structures, built against the lxml of the build
    machine: a different lxml must make it fall back, never give other pages.
    """
    if compiled is None:
        return None
    root = parse_html(_CHECK_PAGE)
    expected, got = Page(), Page()
    try:
        same = (compiled.walk_blocks(root, got, False, True) == _walk_blocks(root, expected, False, True)
                and all(getattr(got, f) == getattr(expected, f) for f in expected.__dataclass_fields__))
    except Exception:   # noqa: BLE001 - a broken build must not break the package
        logger.warning("the compiled walk failed its check; using the Python walk", exc_info=True)
        return None
    if not same:
        logger.warning("the compiled walk gives another page than the Python walk (lxml %s); "
                       "using the Python walk", ".".join(map(str, etree.LXML_VERSION)))
        return None
    return compiled


# Last, as it imports this module's helpers: the compiled twin of _walk_blocks, or None
# (None during its own check: _class_cues then uses the Python unit cues).
_compiled = None
_compiled = _checked_walk(speedups.load("_walk"))
_utf8 = speedups.load("_utf8")
