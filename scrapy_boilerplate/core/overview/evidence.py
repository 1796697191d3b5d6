"""Overview-page detection: pages whose purpose is to lead to other pages.

Home, section, tag and archive pages, search results, shop listings and
forum boards have no main text of their own, only a list of teasers. The
starting point is TextSweeper (Lang et al.): the *net* text length (text
minus link text, teaser links such as "Read more" counted as links) of the
best text-to-tag-ratio region is small on such pages. Net text alone fails
on blog front pages that show full posts, welcome texts on small home pages,
articles with large link rails and very short news items, so page-level
evidence is combined in a small learned model (shipped as JSON, evaluated
with numpy like the block model): net text of the region and its share,
repeated teaser cards, linked headings, teaser phrases, paragraph
statistics, link densities, og:type and JSON-LD @type, the URL's shape, the
length of the <title>, and which common id/class tokens and short link words
the page holds ("related", "pagination", "cart"; "share", "next", "price"):
templates of listings and of articles use different components.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import urlsplit

import numpy as np

from .. import speedups
from ..document.elements import FLAG, HEADING_TAGS
from ..document.page import Page
from ..document.words import count_words
from ..links.urls import ARCHIVED_POST_PATH_RE
from ..metadata.title import TITLE_PART_SEPARATOR_RE
from ..scoring import ttr
from .link_evidence import LINK_FEATURES, link_evidence

if TYPE_CHECKING:
    from collections.abc import Sequence

    from . import _evidence


if not TYPE_CHECKING:
    _evidence = speedups.kernels(__name__)  # compiled, or the same source run as Python


# Teaser links: a "Read more" phrase alone in its block, or text that trails off ("...").
TEASER_PHRASE_RE = re.compile(
    r"^(?:read more|more|continue reading|read the (?:full )?(?:story|article|post)|full story|"
    r"weiterlesen|mehr|lire la suite|en savoir plus|leer más|seguir leyendo|leggi (?:tutto|di più)|"
    r"lees meer|czytaj dalej|ler mais|подробнее|続きを読む)\W*$",
    re.IGNORECASE,
)
TRAILING_ELLIPSIS_RE = re.compile(r"(?:\.\.\.|…)\s*$")
PRICE_RE = re.compile(r"(?:[$€£¥₹]\s?\d|\d[\d.,]*\s?(?:€|eur|usd|\$|£|kr|zł|руб))", re.IGNORECASE)
SHORT_DATE_RE = re.compile(
    r"\b(?:19|20)\d\d\b|\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b|\b(?:jan|feb|mar|apr|may|jun|jul|"
    r"aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b",
    re.IGNORECASE,
)
# Interface text of lists: sorting, filters, result counts, paging, forum columns.
LISTING_UI_RE = re.compile(
    r"^(?:sort(?:ed)? by|filter|filters|refine|results?|showing \d|\d+ (?:results|items|products|articles|posts)|"
    r"page \d+ of|next(?: page)?\W*$|previous(?: page)?\W*$|older (?:posts|entries)|newer (?:posts|entries)|"
    r"load more|view all|see all|show more|add to (?:cart|basket|bag)|quick view|topics?$|replies$|views$|"
    r"last post|threads?$|weiter|zurück|suivant|précédent|siguiente|anterior|alle anzeigen|mehr laden)",
    re.IGNORECASE,
)
DIGIT_RE = re.compile(r"\d")


@dataclass(frozen=True)
class LinePattern:
    """A pattern for one block's text (the reference), and its twin for _ShortBlocks."""

    one: re.Pattern[str]  # searched in one block's text
    lines: re.Pattern[str]  # scanned over "\n" + the lower-cased short blocks joined by "\n"


def _lines(pattern: re.Pattern[str]) -> LinePattern:
    """`pattern` and its twin for all short blocks at once, in lower case.

    One regex scan per page instead of one call per short block, on text
    lower-cased once (IGNORECASE makes Python's re several times slower);
    anchors and spaces stop at the newline between two blocks. A pattern
    anchored at the start of a block matches right after a newline instead:
    with a literal first character, re jumps from newline to newline rather
    than trying every position.
    """
    source = pattern.pattern.replace(r"\W*$", r"[^\w\n]*$").replace(r"\s*$", r"[^\S\n]*$").replace(r"\s?", r"[^\S\n]?")
    if source.startswith("^"):
        source = "\n" + source[1:]
    return LinePattern(pattern, re.compile(source, (pattern.flags & ~re.IGNORECASE) | re.MULTILINE))


TEASER_PHRASE_LINES = _lines(TEASER_PHRASE_RE)
TRAILING_ELLIPSIS_LINES = _lines(TRAILING_ELLIPSIS_RE)
LISTING_UI_LINES = _lines(LISTING_UI_RE)
PRICE_LINES = _lines(PRICE_RE)
SHORT_DATE_LINES = _lines(SHORT_DATE_RE)
# One match per block holding a digit (from its first digit to the end of its line).
DIGIT_LINES = LinePattern(DIGIT_RE, re.compile(r"\d[^\n]*"))


class _ShortBlocks:
    """Some blocks' texts, lower-cased and joined by newlines, for the _lines() patterns."""

    def __init__(self, texts: list[str], blocks: list[int]) -> None:
        self.blocks, self.texts = blocks, texts
        joined = "\n".join([texts[i] for i in blocks]).lower()
        lines = joined.split("\n")
        # A block with a newline of its own (rare) would be read as two: match block by block then.
        self.one_by_one = len(lines) != len(blocks)
        self.starts = list(accumulate((len(t) + 1 for t in lines), initial=0))
        self.padded = "\n" + joined  # every block after a newline, the first one too

    def matching(self, pattern: LinePattern) -> list[int]:
        """The blocks that hold a match of `pattern`."""
        if not self.blocks:
            return []
        if self.one_by_one:
            return [i for i in self.blocks if pattern.one.search(self.texts[i]) is not None]
        starts = self.starts
        # A match lies within one block: its last character (at m.end() - 2 in the joined
        # text, past the leading newline) tells which.
        hits = {bisect_right(starts, m.end() - 2) - 1 for m in pattern.lines.finditer(self.padded)}
        return [self.blocks[k] for k in sorted(hits)]

    def with_digits(self) -> _ShortBlocks:
        """The blocks that hold a digit: the only ones the price and date patterns can match
        (every alternative of theirs holds a \\d), a small part of the short blocks."""
        return _ShortBlocks(self.texts, self.matching(DIGIT_LINES))


PAGINATION_TOKENS = frozenset(
    ("pagination", "pager", "paging", "paginator", "pagenav", "nav-links", "numbers", "loadmore", "load", "infinite")
)
DATE_PATH_RE = re.compile(r"/(?:19|20)\d\d/(?:[01]?\d/)?")
LISTING_PATH_RE = re.compile(
    r"/(?:tag|tags|category|categories|categorie|kategorie|rubrik|section|sections|topics?|archive|"
    r"archives|author|page|search|label|labels|forum|forums|board|shop|collections?|products)(?:/|$)",
    re.IGNORECASE,
)
# Path shapes of single items on common platforms: shop products (Shopify /products/x, Amazon
# /dp/x), forum threads (phpBB viewtopic.php, vBulletin showthread.php, XenForo /threads/x,
# Discourse /t/x), Q&A and wiki pages, galleries and videos.
ITEM_PATH_RE = re.compile(
    r"(?:/|^)(?:products?|dp|item|items|thread|threads|t|topic|viewtopic\.php|showthread\.php|questions|"
    r"qa|wiki|p|listing|video|watch|gallery)(?:/|$|\.)",
    re.IGNORECASE,
)
ITEM_QUERY_RE = re.compile(r"(?:^|&)(?:t|p|id|topic|thread)=\d")
# A listing word as the last path segment: /blog/, /news, /category/, /collections/.
LISTING_END_RE = re.compile(
    r"/(?:tag|tags|category|categories|categorie|kategorie|rubrik|section|sections|topics|archive|"
    r"archives|author|page|search|label|labels|forums?|boards?|collections?|c|browse|departments?|shop|"
    r"catalog|list|blog|news)/?$",
    re.IGNORECASE,
)
LISTING_QUERY_RE = re.compile(r"(?:^|&)(?:sort|order|filter|q|query|s|category|cat)=")
ARTICLE_TYPES = frozenset(
    (
        "article",
        "newsarticle",
        "blogposting",
        "reportagenewsarticle",
        "report",
        "techarticle",
        "scholarlyarticle",
        "analysisnewsarticle",
        "opinionnewsarticle",
        "liveblogposting",
        "recipe",
        "howto",
        "review",
        "socialmediaposting",
    )
)


LISTING_TYPES = frozenset(
    ("collectionpage", "itemlist", "searchresultspage", "website", "blog", "profilepage", "offercatalog")
)

# Token evidence: a feature named NODE_TOKEN + t is 1 when some element's id or class holds token t;
# LINK_WORD + w when the text of some short link holds word w. The training picks the tokens.
NODE_TOKEN = "node:"
LINK_WORD = "link:"
LINK_WORD_RE = re.compile(r"[^\W\d_]{2,}")
SHORT_LINK_CHARS = 40  # a link block shorter than this is a menu, tag or paging link, not a headline

FEATURE_NAMES = (
    "log_net_region",
    "log_net_page",
    "region_share",
    "ld_page",
    "ld_region",
    "log_blocks",
    "log_chars",
    "long_paras",
    "long_para_run",
    "long_para_share",
    "linked_headings",
    "linked_heading_share",
    "headings",
    "teaser_phrases",
    "card_groups",
    "card_items",
    "link_blocks_share",
    "short_link_blocks",
    "og_article",
    "og_website",
    "ld_article",
    "ld_listing",
    "has_body_jsonld",
    "url_depth",
    "url_root",
    "url_date",
    "url_listing",
    "url_page_param",
    "url_slug_words",
    "url_ends_slash",
    "url_has_id",
    "url_known",
    "heading_density",
    "article_tag_count",
    "h1_count",
    "headline_links",
    "headline_link_share",
    "price_blocks",
    "date_blocks",
    "log_max_net_block",
    "card_link_chars",
    "img_per_block",
    "max_card_group",
    "repeated_link_nodes",
    "price_share",
    "card_net_chars",
    "listing_ui",
    "pagination",
    "url_item",
    "url_listing_end",
    "url_listing_query",
    "title_words",
    "title_part_words",
    *LINK_FEATURES,
)


def marked_as_article(page: Page) -> bool:
    """Whether the page marks itself up as an article: og:type "article", or a JSON-LD article
    type (ARTICLE_TYPES)."""
    types = {t.lower() for t in page.jsonld.get("types", []) if isinstance(t, str)}
    return (page.og.get("type") or "").lower() == "article" or bool(types & ARTICLE_TYPES)


def page_evidence(page: Page, url: str | None = None) -> dict[str, float]:
    """Page-level evidence for the overview model (FEATURE_NAMES order).

    Without `url` (None or ""), the URL the page declares stands in
    (own_url): the URL's shape is strong evidence (docs/overview.md, "Pass the URL").
    """
    if not url:
        url = own_url(page)
    n = len(page)
    # The phrase patterns only count on short blocks (teasers under 80 characters, the rest under 60).
    short = _ShortBlocks(page.texts, [i for i, c in enumerate(page.chars) if c < 80])
    teaser = sorted({*short.matching(TEASER_PHRASE_LINES), *short.matching(TRAILING_ELLIPSIS_LINES)})
    with_digits = short.with_digits()

    def under60(blocks: list[int]) -> int:
        return sum(page.chars[i] < 60 for i in blocks)

    listing_ui = under60(short.matching(LISTING_UI_LINES))
    price = under60(with_digits.matching(PRICE_LINES))
    dates = under60(with_digits.matching(SHORT_DATE_LINES))
    region, _ = ttr.best_region(page)
    first, last = (page.node_first[region], page.node_last[region]) if region >= 0 else (0, n)
    sums = block_sums(page, teaser, first, last)
    cards, card_items, card_link_chars, max_group, repeated, card_net = teaser_cards(page)
    og_type = (page.og.get("type") or "").lower()
    ld_types = {t.lower() for t in page.jsonld.get("types", []) if isinstance(t, str)}
    url_f = url_features(url)
    total = max(sums.chars, 1)
    values = {
        "log_net_region": math.log1p(sums.region_net),
        "log_net_page": math.log1p(sums.net),
        "region_share": sums.region_net / max(sums.net, 1),
        "ld_page": sums.links / total,
        "ld_region": sums.region_links / max(sums.region_chars, 1),
        "log_blocks": math.log1p(n),
        "log_chars": math.log1p(total),
        "long_paras": float(sums.long_paras),
        "long_para_run": float(sums.long_para_run),
        "long_para_share": sums.long_para_chars / total,
        "linked_headings": float(sums.linked_headings),
        "linked_heading_share": sums.linked_headings / max(sums.headings, 1),
        "headings": float(sums.headings),
        "teaser_phrases": float(len(teaser)),
        "card_groups": float(cards),
        "card_items": float(card_items),
        "link_blocks_share": sums.link_blocks / max(n, 1),
        "short_link_blocks": sums.short_link_blocks / max(n, 1),
        "og_article": float(og_type == "article"),
        "og_website": float(og_type in ("website", "blog", "product.group")),
        "ld_article": float(bool(ld_types & ARTICLE_TYPES)),
        "ld_listing": float(bool(ld_types & LISTING_TYPES) and not ld_types & ARTICLE_TYPES),
        "has_body_jsonld": float(len(page.jsonld.get("articleBody", "")) > 200),
        **url_f,
        "heading_density": sums.headings / max(sums.long_paras, 1),
        "article_tag_count": float(page.node_tags.count("article")),
        "h1_count": float(sums.h1),
        "headline_links": math.log1p(sums.headline_links),
        "headline_link_share": sums.headline_links / max(n, 1),
        "price_blocks": math.log1p(price),
        "date_blocks": math.log1p(dates),
        "log_max_net_block": math.log1p(sums.max_net),
        "card_link_chars": float(card_link_chars),
        "img_per_block": len(page.images) / max(n, 1),
        "max_card_group": math.log1p(max_group),
        "repeated_link_nodes": math.log1p(repeated),
        "price_share": price / max(n, 1),
        "card_net_chars": math.log1p(card_net),
        "listing_ui": math.log1p(listing_ui),
        "pagination": math.log1p(sums.pagination),
        **title_features(page_title(page)),
        **link_evidence(page, url),
    }
    return values


class BlockSums(NamedTuple):
    """Sums over a page's blocks for the evidence (characters, counts of blocks), all ints."""

    chars: int  # characters of all blocks
    links: int  # link characters, teaser phrases counted as links
    net: int  # net characters: text minus link text
    max_net: int  # the net characters of the block with most
    region_chars: int  # the same three over the blocks of TextSweeper's region
    region_links: int
    region_net: int
    long_paras: int  # paragraphs: >= 200 characters, link density < 0.2
    long_para_run: int  # the longest run of consecutive paragraphs
    long_para_chars: int
    headings: int  # h1-h6 blocks
    linked_headings: int  # headings with link density >= 0.8
    link_blocks: int  # blocks with link density >= 0.8
    short_link_blocks: int  # ... under 60 characters
    headline_links: int  # >= 25 link characters, link density >= 0.6, under 200 characters
    h1: int
    pagination: int  # blocks inside a pager (PAGINATION_TOKENS)


def block_sums(page: Page, teaser: list[int], first: int, last: int) -> BlockSums:
    """BlockSums of `page`, the `teaser` blocks (sorted indices) counted as links, the region
    being blocks first..last-1."""
    return BlockSums(
        *_evidence._block_sums(
            page.chars,
            page.link_chars,
            page.tags,
            page.tokens,
            teaser,
            first,
            last,
            HEADING_TAGS,
            PAGINATION_TOKENS,
        )
    )


def page_title(page: Page) -> str | None:
    """The <title>; where there is none, the og:title, Twitter title, JSON-LD headline or first <h1>."""
    headline = page.jsonld.get("headline")
    return (
        page.title
        or page.og.get("title")
        or page.og.get("tw_title")
        or (headline if isinstance(headline, str) else None)
        or next((text for text, tag in zip(page.texts, page.tags) if tag == "h1"), None)
    )


def title_features(title: str | None) -> dict[str, float]:
    """Words of a title and of its longest part: an article's title holds its headline, a
    sentence; a listing's holds a name ("Politics | Site", "Category: Shoes - Shop").
    Words as count_words counts them: one per two CJK characters, as CJK has no spaces."""
    title = " ".join((title or "").split())
    longest = max((count_words(part) for part in TITLE_PART_SEPARATOR_RE.split(title)), default=0)
    return {"title_words": float(count_words(title)), "title_part_words": float(longest)}


def page_tokens(page: Page) -> tuple[set[str], set[str]]:
    """(id/class tokens of the page's elements, lower-case words of its short link blocks)."""
    link_texts = _evidence._short_link_texts(page.texts, page.chars, page.link_chars, SHORT_LINK_CHARS)
    return (_evidence._node_tokens(page.node_tokens), set(LINK_WORD_RE.findall(" ".join(link_texts).lower())))


def is_token_feature(name: str) -> bool:
    return name.startswith((NODE_TOKEN, LINK_WORD)) and len(name) > len(LINK_WORD)


class EvidencePlan:
    """Where each piece of evidence goes in a model's feature row (worked out once per model)."""

    def __init__(self, feature_names: Sequence[str]) -> None:
        self.size = len(feature_names)
        dense = [(i, name) for i, name in enumerate(feature_names) if not is_token_feature(name)]
        self.dense_columns = [i for i, _ in dense]
        self.dense_names = [name for _, name in dense]
        self.node_tokens = {
            name[len(NODE_TOKEN) :]: i for i, name in enumerate(feature_names) if name.startswith(NODE_TOKEN)
        }
        self.link_words = {
            name[len(LINK_WORD) :]: i for i, name in enumerate(feature_names) if name.startswith(LINK_WORD)
        }

    def row(self, page: Page, url: str | None) -> tuple[dict[str, float], np.ndarray]:
        """(page evidence, the model's feature row): token features are 1 where the page has the token."""
        values = page_evidence(page, url)
        row = np.zeros(self.size)
        row[self.dense_columns] = [values[name] for name in self.dense_names]
        node_tokens, words = page_tokens(page)
        for index, found in ((self.node_tokens, node_tokens), (self.link_words, words)):
            row[[index[t] for t in found if t in index]] = 1.0
        return values, row


def url_features(url: str | None) -> dict[str, float]:
    """The URL's shape: depth, root, date, listing words, page parameter, slug words, item paths."""
    out = {
        "url_depth": 0.0,
        "url_root": 0.0,
        "url_date": 0.0,
        "url_listing": 0.0,
        "url_page_param": 0.0,
        "url_slug_words": 0.0,
        "url_ends_slash": 0.0,
        "url_has_id": 0.0,
        "url_known": 0.0,
        "url_item": 0.0,
        "url_listing_end": 0.0,
        "url_listing_query": 0.0,
    }
    if not url:
        return out
    try:
        parts = urlsplit(url)
    except ValueError:
        return out
    path = parts.path or "/"
    segments = [s for s in path.split("/") if s]
    last = segments[-1] if segments else ""
    slug = re.sub(r"\.(?:html?|php|aspx?|jsp)$", "", last)
    # WordPress's /archives/123, Hexo's /archives/59303.html: a post's number under "archives".
    archived_post = ARCHIVED_POST_PATH_RE.search(path)
    out.update(
        url_known=1.0,
        url_depth=float(len(segments)),
        url_root=float(not segments and not parts.query),
        url_date=float(DATE_PATH_RE.search(path) is not None),
        url_listing=float(LISTING_PATH_RE.search(path) is not None and archived_post is None),
        url_page_param=float(
            bool(re.search(r"(?:^|&)(?:page|p|paged|start|offset)=\d", parts.query))
            or bool(re.search(r"/page/\d+", path))
        ),
        url_slug_words=float(len([w for w in re.split(r"[-_]+", slug) if w.isalpha()])),
        url_ends_slash=float(path.endswith("/")),
        url_has_id=float(bool(re.search(r"\d{4,}", last))),
        url_item=float(
            ITEM_PATH_RE.search(path) is not None
            or ITEM_QUERY_RE.search(parts.query) is not None
            or archived_post is not None
        ),
        url_listing_end=float(LISTING_END_RE.search(path) is not None),
        url_listing_query=float(LISTING_QUERY_RE.search(parts.query) is not None),
    )
    return out


def teaser_cards(page: Page) -> TeaserCards:
    """Groups of >= 3 sibling cards (cards.card_groups: the same tag and classes, each holding a
    headline-like link).

    Teaser lists repeat one card template (a linked headline of some length,
    maybe a short text) under a common parent; menus repeat short links and
    article bodies repeat bare <p>s without links. Returns (groups, cards in
    groups, mean link characters per card, the largest group, the most
    repeated card signature anywhere on the page, mean net text per card:
    teasers are short, forum posts are long).
    """
    return _evidence._teaser_cards(
        page.node_parents,
        page.node_first,
        page.node_last,
        page.node_tags,
        page.node_tokens,
        page.node_flags,
        page.chars,
        page.link_chars,
        FLAG["nav"],
    )


#: (groups, cards in groups, mean link characters per card, the largest group, the most repeated
#: card signature, mean net text per card): see _teaser_cards.
TeaserCards = tuple[int, int, float, int, int, float]


def own_url(page: Page) -> str | None:
    """The absolute http(s) URL a page declares for itself: <link rel="canonical">, else og:url."""
    for url in (page.canonical_url, page.og.get("url")):
        if url and url.lower().startswith(("http://", "https://")):
            return url
    return None
