"""The vocabularies of the class and id cues, their caches and `key_bits`.

The vocabularies are plain word lists. A class name or id is lower-cased and cut
into *tokens*, its runs of letters a-z, and each token and each pair of adjacent
tokens joined is a *key* ("read-more" gives "read", "more" and "readmore"). A
cue category marks the element when one of its ``inside`` words occurs in a key,
or a key is one of its ``whole`` words ("nav" but not "canvas"). Keys hold only
letters, so the words are written without hyphens.

``_cues`` (compiled where the package was built, else run as Python) reads them and fills the
caches; ``cues`` publishes its ``unit_cues`` and ``class_cues`` beside the other cues.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from ..caches import BoundedCache
from .elements import FLAG

if TYPE_CHECKING:
    from .page import Tokens


class CueWords(NamedTuple):
    inside: tuple[str, ...] = ()  # a key holding one of these words has the cue
    whole: tuple[str, ...] = ()  # a key equal to one of these has it


# By flag name (FLAG): the id/class cue vocabularies.
CUE_WORDS = {
    "positive": CueWords(
        inside=(
            "article",
            "body",
            "content",
            "entry",
            "hentry",
            "main",
            "post",
            "text",
            "blog",
            "story",
            "prose",
            "richtext",
        )
    ),
    "negative": CueWords(
        inside=(
            "sidebar",
            "widget",
            "banner",
            "masthead",
            "promo",
            "sponsor",
            "skyscraper",
            "outbrain",
            "taboola",
            "breadcrumb",
            "pagination",
            "pager",
            "menu",
            "navbar",
            "footer",
            "header",
            "toolbar",
            "popup",
            "modal",
            "taglist",
            "categor",
            "archive",
            "author",
            "byline",
            "avatar",
            "profile",
            "rating",
            "login",
            "signup",
        ),
        whole=("nav", "tag", "tags"),
    ),
    "share": CueWords(
        inside=("share", "sharing", "social", "facebook", "twitter", "whatsapp", "linkedin", "pinterest", "print")
    ),
    "related": CueWords(
        inside=(
            "related",
            "recommend",
            "morestories",
            "readmore",
            "also",
            "popular",
            "trending",
            "teaser",
            "mostread",
            "mostviewed",
            "nextpost",
            "prevpost",
            "youmay",
            "suggest",
        )
    ),
    "caption": CueWords(inside=("caption", "credit", "photoinfo", "imageinfo")),
    "meta": CueWords(inside=("meta", "date", "time", "posted", "published", "dateline", "byline", "tools", "reprint")),
    "ad": CueWords(inside=("advert", "adslot", "adunit", "sponsored", "nativead"), whole=("ad", "ads", "dfp", "gpt")),
    "cookie": CueWords(inside=("cookie", "consent", "gdpr", "privacybanner"), whole=("cmp",)),
    "newsletter": CueWords(inside=("newsletter", "subscribe", "subscription", "signup", "optin", "mailing")),
    "title_like": CueWords(
        inside=("title", "headline", "dek", "standfirst", "subtitle", "subhead", "summary", "lede", "intro", "excerpt")
    ),
    # Class names that spell the article body's itemprop ("entry-content", "post_body").
    "body_prop": CueWords(
        whole=(
            "articlebody",
            "entrycontent",
            "postcontent",
            "postbody",
            "storybody",
            "articlecontent",
            "maincontent",
            "posttext",
            "contentbody",
            "articletext",
            "storytext",
            "entrybody",
        )
    ),
}
_CUE_MATCHERS = [(FLAG[name], words.inside, frozenset(words.whole)) for name, words in CUE_WORDS.items()]
# Every word of every category: a name holding none of them has no cue (one scan, no key split).
ANY_CUE_WORD_RE = re.compile(
    "|".join(re.escape(word) for words in CUE_WORDS.values() for word in words.inside + words.whole)
)

# Comment sections are skipped unless the caller asks for them. A name (or, for an id with
# spaces, a space-separated part of it) marks one when its parts (split at "-" and "_") hold
# "comment" or "comments" ("comments", "comment-list", "article_comments", "comment-215101"),
# unless a later part makes it a link, a counter or a state about the comments
# ("post-comments-link", "comments-open"); or when it is one of the other names below.
COMMENT_STEMS = frozenset(("comment", "comments"))
NOT_COMMENT_SECTION_PARTS = frozenset(
    (
        "open",
        "closed",
        "count",
        "counts",
        "link",
        "links",
        "number",
        "num",
        "icon",
        "btn",
        "button",
        "bubble",
        "meta",
        "enabled",
        "disabled",
        "allowed",
        "none",
    )
)
COMMENT_SECTION_NAMES = frozenset(
    ("commentlist", "disqus", "disqus_thread", "respond", "replies", "discussion", "talkback")
)
_NAME_PARTS_RE = re.compile(r"[-_]")


def is_comment_section_name(name: str) -> bool:
    """Whether one lower-case class name or id (without spaces) names a comment section."""
    if name in COMMENT_SECTION_NAMES:
        return True
    parts = _NAME_PARTS_RE.split(name)
    for k, part in enumerate(parts):
        if part in COMMENT_STEMS:
            return NOT_COMMENT_SECTION_PARTS.isdisjoint(parts[k + 1 :])
    return False


# Every comment-section name holds one of these: the compiled kernel's cheap test first.
COMMENT_WORDS = ("omment", "disqus", "respond", "repl", "discussion", "talkback")
TOKEN_SPLIT_RE = re.compile(r"[^a-z]+")
# Classes that WordPress (post_class, body_class) and similar systems derive from a post's
# taxonomy and id: tag-*, category-*, post-1234, postid-1234, page-id-12.
TAXONOMY_PREFIXES = ("tag-", "category-", "post_tag-", "postid-", "page-id-")
TAXONOMY_CLASS_RE = re.compile(
    "(?:" + "|".join(re.escape(prefix) for prefix in TAXONOMY_PREFIXES) + r")|post-\d+$", re.IGNORECASE
)


#: A class name's or id's cues, and an element's: (flag bits, tokens, is-comment-section).
Cue = tuple[int, "Tokens", bool]

# Used by _cues: per (id, class) pair, per class name, per key. Bounded in
# characters too: a page's class attribute may be as long as the page. (Ordinary pages fill
# a generation's entries first: an entry holds about 90, 30 and 10 characters.)
CUE_CACHE: BoundedCache[tuple[str | None, str | None], Cue] = BoundedCache(50_000, max_chars=8_000_000)
UNIT_CACHE: BoundedCache[str, Cue] = BoundedCache(100_000, max_chars=4_000_000)
KEY_CACHE: BoundedCache[str, int] = BoundedCache(100_000, max_chars=2_000_000)


def key_bits(key: str) -> int:
    """Cue bits of one key (a run of letters a-z, or two joined); cached (keys repeat across sites)."""
    bits = KEY_CACHE.young.get(key)
    if bits is None:
        bits = KEY_CACHE.get(key)
    if bits is None:
        bits = 0
        if ANY_CUE_WORD_RE.search(key) is not None:  # most keys hold no cue word at all
            for bit, inside, whole in _CUE_MATCHERS:
                if key in whole or any(word in key for word in inside):
                    bits |= bit
        KEY_CACHE.put(key, bits)
    return bits
