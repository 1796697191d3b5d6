"""What the walk knows about one element from its tag alone.

Tag sets (block-level, skipped), the semantic-ancestor flag bits and each
tag's *kind* (how the walk treats it). The class/id/role cues live in
``cues.py``, what hides an element in ``hidden.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lxml import etree

BLOCK_TAGS = frozenset(
    """p div section article main header footer nav aside h1 h2 h3 h4 h5 h6
    li ul ol dl dt dd table tr td th thead tbody tfoot caption blockquote pre
    figure figcaption form fieldset legend address hr center details summary
    body html menu dialog noscript iframe option select textarea""".split()
)
HEADING_TAGS = frozenset("h1 h2 h3 h4 h5 h6".split())
# Subtrees that never hold readable main content. <math> is read (a formula is part of the
# text), but not its <annotation>s: the TeX or content-MathML source of the same formula.
# Ruby annotations (<rt>, <rp>: the reading printed above Japanese and Chinese characters)
# are not read either: "子ども", not "子こども".
SKIP_TAGS = frozenset(
    """script style noscript template svg iframe object embed canvas annotation annotation-xml
    select option textarea input dialog head map audio video source track rt rp""".split()
)

# Semantic-ancestor bits. A block's flags are the OR of the bits of all its
# ancestors, so "inside an <aside>" is one bit test. The order is part of the
# shipped model (one feature column per flag, in this order).
FLAG_NAMES = (
    "article",
    "main",
    "nav",
    "aside",
    "header",
    "footer",
    "figure",
    "li",
    "table",
    "blockquote",
    "pre",
    "form",
    "link",
    "heading",
    "body_prop",
    "comment",
    "positive",
    "negative",
    "share",
    "related",
    "caption",
    "meta",
    "ad",
    "cookie",
    "newsletter",
    "title_like",
    "code",
)
FLAG = {name: 1 << i for i, name in enumerate(FLAG_NAMES)}
TAG_FLAGS = {
    "article": FLAG["article"],
    "main": FLAG["main"],
    "nav": FLAG["nav"],
    "aside": FLAG["aside"],
    "header": FLAG["header"],
    "footer": FLAG["footer"],
    "figure": FLAG["figure"],
    "figcaption": FLAG["caption"] | FLAG["figure"],
    "li": FLAG["li"],
    "table": FLAG["table"],
    "blockquote": FLAG["blockquote"],
    "pre": FLAG["pre"] | FLAG["code"],
    "code": FLAG["code"],
    "form": FLAG["form"],
    "h1": FLAG["heading"],
    "h2": FLAG["heading"],
    "h3": FLAG["heading"],
    "h4": FLAG["heading"],
    "h5": FLAG["heading"],
    "h6": FLAG["heading"],
    "menu": FLAG["nav"],
    "button": FLAG["form"],
    "label": FLAG["form"],
}

#: Inline elements that each hold one value (an identifier, a key, a code sample): two of them with
#: only tags between (`<code>name</code><code>string</code>` in a table cell) are two words. Other
#: inline elements next to each other stay glued: `<b>W</b>ord` is one word on purpose.
SEPARATE_TAGS = frozenset(("code", "kbd", "samp"))
#: ...unless the first ends with a character that joins the parts of one name or path: old Sphinx
#: writes `<code>os.path.</code><code>join</code>`, C++ docs `<code>std::</code><code>vector</code>`.
SEPARATE_JOINERS = frozenset("./\\:-_([<@")

# Element kinds for the walk, looked up once per tag name (_walk.pyx mirrors these numbers).
K_INLINE, K_BLOCK, K_SKIP, K_BR, K_LINK, K_IMG, K_PRE = range(7)


def clean_tag(tag: object) -> str:
    """Lower-case local name of a tag ('{ns}Div' -> 'div'); '' for comments and PIs."""
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1].rsplit(":", 1)[-1].lower()


def tag_info(tag: object) -> tuple[int, int]:
    """(kind, flag bits) of a tag name; cached in TAG_INFO."""
    name = clean_tag(tag)
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
    if isinstance(tag, str) and len(TAG_INFO) < MAX_TAG_INFO and len(tag) <= MAX_TAG_INFO_CHARS:
        TAG_INFO[tag] = info
    return info


TAG_INFO: dict[str, tuple[int, int]] = {}
#: Tag names kept in TAG_INFO at most, and their length at most (libxml2's HTML parser cuts a
#: name at 100 characters; a tree handed in, of lxml's XML parser or built in code, may hold
#: names of any length): 500,000 characters in all.
MAX_TAG_INFO, MAX_TAG_INFO_CHARS = 5000, 100

# Attributes that may hide an element or carry a role/itemprop cue: an element
# with none of them skips those checks.
#: The whole text of a link that only marks a heading's own anchor: Sphinx's "¶", rustdoc's "§".
ANCHOR_MARKS = frozenset(("¶", "§", "#", "🔗"))


def is_anchor_mark(el: etree._Element) -> bool:
    """A link to a place on its own page whose whole text is an anchor mark ("Quickstart¶"):
    not text of the page."""
    return (el.get("href") or "").startswith("#") and len(el) == 0 and (el.text or "").strip() in ANCHOR_MARKS


SPECIAL_ATTRS = frozenset(("hidden", "aria-hidden", "aria-modal", "popover", "style", "role", "itemprop"))
