"""Article metadata: authors, dates, language, site name, canonical URL, description, lead image.

Each source is a small function returning what it found (a dict of raw values);
``article_metadata`` takes every field from the most trusted source that has a
valid value: schema.org JSON-LD, microdata in <head>, Open Graph and article:*,
Dublin Core, other <meta> names, the byline and <time> near the headline or at the
top of the content the model found, the URL. Nothing is guessed: unknown is None or [].

The <head> and JSON-LD were read during the walk (document/head.py); only the few blocks
around the headline are looked at again here, so the cost is small and bounded.
"""

from __future__ import annotations

import html
import re
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timedelta
from itertools import islice
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..document.words import clean_text
from ..jsondata import JsonObject
from ..render.urls import page_base, safe_url
from .authors import MAX_NAME_CHARS, clean_authors, split_names
from .dates import DATE_TEXT_RE, normalize_date, url_date
from .language import page_language

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import numpy as np
    from lxml import etree

    from ..document.page import Page

#: Blocks read before the headline, and after it or after the content's first block.
WINDOW_BEFORE, WINDOW_AFTER = 3, 8
#: The sources' places in article_metadata's list, most trusted first.
JSONLD, META, BYLINE, MICRODATA, URL = range(5)
#: A UTC time before this hour may be the evening before in the page's own time zone (the
#: Americas are 3 to 10 hours behind UTC).
LOCAL_DAY_HOURS = 12
#: Elements of an itemprop=author element searched for its itemprop=name.
MICRODATA_ELEMENTS = 200
#: Items whose author is someone else than the page's: reviews, answers, the product or book the
#: page sells. (Not "Comment": forums mark their posts so, the thread's first one included.)
OTHERS_ITEMS = ("Review", "Answer", "Product", "Book", "Offer")
#: <meta> elements of <head> read for every citation_author (a paper's authors).
MAX_HEAD_META = 1000
#: Short lines with digits read when looking for a date in the whole page (page_date).
PAGE_DATE_LINES = 40
#: A block longer than this is text, not a byline or a date line.
MAX_BYLINE_CHARS = 200
#: A block longer than this is not a date line ("Jun 08, 2023 • 11 Minute Read").
MAX_DATE_LINE_CHARS = 80
# A forum thread's starter in its header (XenForo, VerticalScope, vBulletin): the name after
# the label, or before "Discussion starter"; the whole block is the label and one name.
THREAD_STARTER_RE = re.compile(
    r"^\s*(?:thread starter|started by|original poster|op)\s*:?\s+(\S.{0,40}?)\s*$|"
    r"^\s*(\S.{0,40}?)\s+(?:discussion|thread) starter\s*$",
    re.I,
)
# ...and in a first post's header line: phpBB's "Post by changingtimes » Sat Feb 24, 2024",
# XenForo's "Discussion in 'Hosting Advice' started by pelex, May 26, 2025".
THREAD_POST_RE = re.compile(r"^\s*post by (\S.{0,40}?) [»›]|\bstarted by (\S[^,]{0,40}?),", re.I)
#: A linked subheading of more words than this under the headline is a teaser's title.
TEASER_WORDS = 3
#: Heading tags: a heading is a headline, a section's or a teaser's title, never a byline.
HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
#: A byline starting "By" and a lower-case word is a sentence beyond this many words.
SENTENCE_WORDS = 4
#: Levels of elements whose class and id words mark a byline block: its own and its parent's (a
#: block's tokens run from its own element outwards over every wrapper with a class, at most 12:
#: the last ones are the page layout's, "single-author" on an author's whole page).
OWN_LEVELS = 2
#: Class words of a block about an author that is not the byline: a description, a bio, a job
#: title, an avatar ("author-description": "Licensed Q Arabica Grader, M.A. Journalism").
NOT_BYLINE_TOKENS = frozenset(
    ("desc", "description", "bio", "biography", "about", "title", "job", "role", "avatar", "image", "photo")
)
#: Elements of a byline block searched for the element that holds its name.
NAME_ELEMENTS = 40
#: Class and id words of a byline.
BYLINE_TOKENS = re.compile(r"byline|author|writer|posted-?by|contributor|reporter|autor|auteur")
UPDATED_RE = re.compile(
    r"(?:updat|modif|revised|aktualisiert|geändert|mis à jour|actualizado|"
    r"aggiornato|bijgewerkt|zaktualizowano)\w*(?:\s+(?:on|at|am|le|el)\b)?\s*:?",
    re.I,
)
# A block about the thread's or the member's activity, not the page: "last post by X Jan 18",
# "Latest reply", "Joined 2021". Its dates are never the page's.
ACTIVITY_RE = re.compile(
    r"\blast (?:post|reply|activity|comment|active|seen|checked)|\blatest (?:post|reply)|"
    r"\bjoined\b|\bmember since\b|\bopen today\b",
    re.I,
)
_has_digit = re.compile(r"\d").search
# Class words of a block whose dates belong to someone else's text: reviews, comments, ratings.
OTHERS_DATES = ("review", "comment", "rating", "reply", "answer")
# Byline words at the start of a block ("By", "Von"...), as the extractor's BYLINE_RE.
BYLINE_START = re.compile(r"^\s*(?:(?:posted|written|published)\s+)?(?i:by|von|par|por|di|door|av|af|przez)\s+\S")

_PARSELY_DATE_RE = re.compile(r'"pub_date"\s*:\s*"([^"]{4,40})"')

# <meta> names per field, most trusted first (lower case, as document/head.py keeps them).
META_PUBLISHED = (
    "article:published_time",
    "og:published_time",
    "og:article:published_time",
    "datepublished",
    "dc.date.issued",
    "dcterms.issued",
    "dc.date",
    "dcterms.date",
    "dcterms.created",
    "dc.date.created",
    "citation_publication_date",
    "citation_date",
    "parsely-pub-date",
    "sailthru.date",
    "article.published",
    "article_date_original",
    "publish-date",
    "publish_date",
    "publishdate",
    "pubdate",
    "date",
    "datecreated",
    "release_date",
    # less common names (most of them in htmldate's list)
    "published-date",
    "published_date",
    "publisheddate",
    "publication_date",
    "date_published",
    "og:publish_date",
    "og:pubdate",
    "article:published",
    "article:published_date",
    "article:post_date",
    "rnews:datepublished",
    "originalpublicationdate",
    "dc.date.publication",
    "dcsext.articlefirstpublished",
    "displaydate",
    "pdate",
    "published",
    "published_time",
    "publish_time",
    "publishedtime",
    "published_at",
    "cxenseparse:publishtime",
    "cxenseparse:recs:publishtime",
    "shareaholic:article_published_time",
    "twt-published-at",
    "uploaddate",
    "dateposted",
)
#: Any other <meta> name that says "published date" ("w-published-date", "x:published_on").
META_PUBLISHED_RE = re.compile(
    r"(?:^|[-_.:])(?:published[-_]?(?:date|time|at|on)|date[-_]?published|"
    r"pub[-_]?date)$"
)
META_MODIFIED = (
    "article:modified_time",
    "og:updated_time",
    "datemodified",
    "dcterms.modified",
    "dc.date.modified",
    "article.updated",
    "last-modified",
    "lastmod",
    "revised",
    "article:modified",
    "article:modified_date",
    "og:article:modified_time",
    "og:modified_time",
    "modified_time",
    "updated_time",
    "dc.modified",
    "lastmodified",
    "modified",
    "utime",
    "shareaholic:article_modified_time",
)
META_AUTHORS = (
    "article:author",
    "author",
    "dc.creator",
    "dcterms.creator",
    "citation_author",
    "parsely-author",
    "sailthru.author",
    "byl",
    "article.author",
)
META_SITE = ("og:site_name", "application-name", "apple-mobile-web-app-title", "dc.publisher", "publisher")
META_IMAGE = (
    "og:image",
    "og:image:url",
    "og:image:secure_url",
    "twitter:image",
    "twitter:image:src",
    "image",
    "thumbnail",
)
META_DESCRIPTION = ("og:description", "description", "twitter:description", "dc.description", "dcterms.description")


#: What one source found: field -> candidate values, raw (JSON-LD values among them), each
#: checked by its cleaner when read; "listing": whether the page lists others (the byline source).
Found = JsonObject


@dataclass
class ArticleMetadata:
    authors: list[str] = field(default_factory=list)
    date_published: str | None = None
    date_modified: str | None = None
    language: str | None = None
    site_name: str | None = None
    canonical_url: str | None = None
    description: str | None = None
    image: str | None = None
    #: The page's own strings the dates were read from ("March 5, 2024"), by field name, where
    #: one gives the date chosen (schema.org's datePublishedRaw); not a field of its own elsewhere.
    dates_raw: dict[str, str] = field(default_factory=dict, repr=False, compare=False, metadata={"raw": True})

    def to_dict(self) -> JsonObject:
        return {name: value for name, value in asdict(self).items() if name in METADATA_FIELDS}


#: The metadata's fields, in order: an `Extraction`'s attributes and `to_dict()` keys of that
#: name, the explain page's metadata rows (one definition, read by tests and benchmarks too).
METADATA_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(ArticleMetadata) if not f.metadata.get("raw"))


def article_metadata(
    page: Page, mask: np.ndarray | None, title: str | None, url: str | None, text: str = "", images: Sequence[str] = ()
) -> ArticleMetadata:
    """The article metadata of a walked page, given the content mask the model chose."""
    base = page_base(url or page.base_url, page.base_href)
    window = byline_window(page, mask, title)
    sources = (
        from_jsonld(page),
        from_meta(page),
        from_byline(page, window),
        from_microdata(page),
        from_url(url),
    )  # in the order of JSONLD, META, BYLINE, MICRODATA, URL
    meta = ArticleMetadata()
    persons: list[str] = []
    organisations: list[str] = []
    named: list[str] = []
    for found in sources:
        persons.extend(found.get("authors", ()))
        organisations.extend(found.get("organisations", ()))
        if persons and (named := clean_authors(persons)):
            break  # the most trusted source that names people decides them (a URL names none)
    meta.authors = named or shown_organisations(page, window, organisations, sources, url or page.base_url)
    shown = clean_authors(sources[BYLINE]["authors"]) if sources[BYLINE]["authors"] else []
    if (
        meta.authors
        and shown
        and all(map(_is_handle, meta.authors))
        and not any(map(_is_handle, shown))
        and not declares_thread(page)
    ):
        # The metadata gives a login ("andrew.keaveney", "jrobison"), the byline the name the
        # page shows ("Denise Everheart"): readers know the writer by the shown one. (On a
        # forum the user name is the name shown; what is beside it is a rank, "Silver Partner".)
        meta.authors = shown
    elif (
        meta.authors
        and shown
        and not declares_thread(page)
        and _site_authors(meta.authors, shown, sources, url or page.base_url)
    ):
        # The metadata names the site itself ("Cleveland Clinic", "USA TODAY", "Buzzsprout" as
        # the JSON-LD or <meta> author), the byline under the headline a person: the writer.
        meta.authors = shown
    meta.date_published, meta.date_modified, meta.dates_raw = _dates(sources, page)
    if declares_no_article(page):
        # A product or a listing has no byline: its <meta name=author> is the shop or the
        # site, and a "By Almondina" under a product's name is its brand. But a page declared
        # a list (JSON-LD ItemList) and signed under its headline is a listicle ("Five of the
        # best science fiction books"): the signed byline wins.
        signed = shown if not declares_product(page) and not sources[BYLINE].get("listing") else []
        meta.authors = meta.authors if {n.casefold() for n in meta.authors} & {n.casefold() for n in signed} else signed
    elif not meta.authors and meta.date_published and not sources[BYLINE].get("listing"):
        # A dated post signed at its end or in a side column. (Undated pages, products and
        # services, have "Our Product Research Team" boxes, not bylines.)
        meta.authors = clean_authors(page_byline(page))
    meta.site_name = _first(sources, "site_name", _clean_text)
    meta.description = _first(sources, "description", _clean_text)
    meta.canonical_url = _first(sources, "canonical_url", lambda v: _absolute(v, base))
    meta.image = _first(sources, "image", lambda v: _absolute(v, base))
    if meta.image is None and images:
        meta.image = images[0]  # the content's first image is its lead image
    meta.language = page_language(page, text, _first(sources, "language", _clean_text))
    return meta


def _dates(sources: tuple[Found, ...], page: Page | None = None) -> tuple[str | None, str | None, dict[str, str]]:
    """(date_published, date_modified, the strings they were read from) from the sources, most
    trusted first, with what the page shows under its headline (the byline source) deciding
    between them."""
    read: dict[str, str | None] = {}

    def normalize(value: object) -> str | None:
        # The steps below read the same values again: each text is read as a date once.
        if not isinstance(value, str):
            return normalize_date(value)
        if value not in read:
            read[value] = normalize_date(value)
        return read[value]

    published = _first(sources, "date_published", normalize)
    modified = _first(sources, "date_modified", normalize)
    byline, meta_tags = sources[BYLINE : BYLINE + 1], sources[META : META + 1]
    shown = _all(byline, "date_published", normalize)
    shown_update = _first(byline, "date_modified", normalize)
    if not shown and shown_update and not _first(meta_tags, "date_published", normalize):
        # Under its headline the page gives only its last update ("Updated August 14, 2025"),
        # and its <meta> tags name no publication date: the page dates itself by the update,
        # and readers (and the gold) take that. With article:published_time in <meta>, the
        # site states its publication date and the update stays date_modified.
        published = shown_update
    elif (
        shown
        and modified
        and shown[0][:10] == modified[:10] != (published or "")[:10]
        and not any(day[:10] == (published or "")[:10] for day in shown)
    ):
        # The page shows its last modification, unlabelled, as its date under the headline
        # (and not the metadata's publication date anywhere near it): that is the date it
        # gives itself (the metadata's first one is an older draft's).
        published = modified
    if published is None and modified is None and page is not None and not _listing(sources, page):
        published = page_date(page)
    if published is None:
        # A page that gives only its last update ("Updated July 9, 2025", dateModified) dates
        # itself by it: that is the date readers and the gold take as the page's.
        published = modified
    if published:
        stated = sources[:BYLINE] + sources[URL:]  # the metadata and the URL, not what is shown
        published = _local_day(published, _all(stated, "date_published", normalize))
    if published and modified and modified[:10] < published[:10]:
        modified = None  # an "update" before the publication is another page's date
    raw = {}
    for name, value in (("date_published", published), ("date_modified", modified)):
        # The first string read that gives the date chosen (the most trusted source's).
        found = next((text for text, read_as in read.items() if value and read_as == value), None)
        if found is not None:
            raw[name] = found
    return published, modified, raw


def _listing(sources: tuple[Found, ...], page: Page) -> bool:
    """Whether the page lists other pages (teasers under its headline, or it says so): the
    dates and bylines found elsewhere on it are its teasers'."""
    return bool(sources[BYLINE].get("listing")) or declares_no_article(page)


def _local_day(chosen: str, others: list[str]) -> str:
    """`chosen` as the page's own time zone dates it. A UTC stamp ("2025-12-19T02:41:41+00:00")
    of an evening in America falls on the next day: when the page's metadata also gives the
    same instant with the site's offset, or its URL has the day before, that is its date.
    (What the byline shows is not asked: the development gold takes the UTC day as often
    as the shown one there.)"""
    if not (chosen.endswith("+00:00") and len(chosen) > 10):
        return chosen
    instant = datetime.fromisoformat(chosen)
    if any(len(other) == 10 and other == chosen[:10] for other in others):
        return chosen  # the URL or the metadata gives the UTC day itself
    for other in others:
        if len(other) > 10 and not other.endswith("+00:00") and other[19:]:
            try:
                if datetime.fromisoformat(other) == instant:
                    return other
            except ValueError:
                continue
        elif len(other) == 10 and instant.hour < LOCAL_DAY_HOURS:
            if other == (instant - timedelta(days=1)).date().isoformat():
                return other
    return chosen


def _all(sources: Sequence[Found], key: str, clean: Callable[[Any], str | None]) -> list[str]:
    """Every valid value of `key` in the sources, in order."""
    return [cleaned for found in sources for value in found.get(key, ()) if (cleaned := clean(value))]


def _first(sources: Sequence[Found], key: str, clean: Callable[[Any], str | None]) -> str | None:
    for found in sources:
        for value in found.get(key, ()):
            cleaned = clean(value)
            if cleaned:
                return cleaned
    return None


# --- sources ---------------------------------------------------------------------------


def from_jsonld(page: Page) -> Found:
    """The schema.org article object (else the page-like one) of the page's JSON-LD."""
    ld = page.jsonld
    item = ld.get("article") or ld.get("page") or {}
    people = ld.get("people", {})
    persons, organisations = _ld_authors(item.get("author") or item.get("creator"), people)
    publisher = _ld_name(item.get("publisher"))
    return {
        "authors": persons,
        "organisations": organisations,
        "date_published": [item.get("datePublished"), item.get("dateCreated")],
        "date_modified": [item.get("dateModified")],
        "site_name": [ld.get("site_name"), publisher],
        "description": [item.get("description")],
        "image": _ld_urls(item.get("image") or item.get("thumbnailUrl")),
        "canonical_url": [item.get("url")] if "article" in ld else [],
        "language": [item.get("inLanguage")],
    }


def from_meta(page: Page) -> Found:
    """Open Graph and article:* tags, Dublin Core, <meta itemprop> and other <meta> names."""
    meta = page.meta
    authors = []
    for k in META_AUTHORS:
        if k in meta:
            authors.extend(_citation_authors(page) if k == "citation_author" else [meta[k]])
    return {
        "authors": authors,
        "date_published": _meta_published(meta),
        "date_modified": [meta[k] for k in META_MODIFIED if k in meta],
        "site_name": [meta[k] for k in META_SITE if k in meta],
        "description": [meta[k] for k in META_DESCRIPTION if k in meta],
        "image": [meta[k] for k in META_IMAGE if k in meta],
        "canonical_url": [page.canonical_url, meta.get("og:url")],
        "language": [meta.get(k) for k in ("content-language", "dc.language", "language", "og:locale") if k in meta],
    }


#: A citation_author written "Last, First" (Highwire Press tags: arXiv's "Roy, Aniruddha").
_LAST_FIRST_RE = re.compile(r"^\s*([^,\d]{2,40}),\s*([^,\d]{2,40})$")


def _citation_authors(page: Page) -> list[str]:
    """Every `<meta name="citation_author">` of a scholarly page, in order (the walk kept the
    first): one author each, "Last, First" turned to "First Last" when every one is so written
    (a single one only when its surname is one word: "Jane Doe, John Roe" is two names)."""
    head = page.root.find("head") if page.root is not None else None
    values: list[str] = []
    for el in islice(head.iter("meta"), MAX_HEAD_META) if head is not None else ():
        content = el.get("content")
        if content and (el.get("name") or "").lower() == "citation_author":
            values.append(content)
    if not values:
        values = [page.meta["citation_author"]]
    matches = [_LAST_FIRST_RE.match(v) for v in values]
    first = matches[0]
    if not all(matches) or (len(values) == 1 and first is not None and " " in first.group(1).strip()):
        return values  # "Jane Doe, John Roe" in one tag: two names
    return [f"{m.group(2).strip()} {m.group(1).strip()}" for m in matches if m]


def from_byline(page: Page, window: range) -> Found:
    """Bylines and dates in the blocks around the headline (see byline_window)."""
    authors: list[str] = []
    published: list[str] = []
    modified: list[str] = []
    previous = ""
    headline_linked: bool | None = None  # None until the headline (the first h1) is met
    teaser = False
    subheading = False  # a heading after the headline was passed
    signed_under_subheading = False
    signed_at = -1
    for i in window:
        text = page.texts[i]
        if page.chars[i] > MAX_BYLINE_CHARS:
            previous = ""
            continue
        heading = page.tags[i] in HEADINGS and not BYLINE_START.match(text)
        linked = page.link_chars[i] * 2 > page.chars[i]
        if heading and headline_linked is None and page.tags[i] == "h1":
            headline_linked = linked
        elif (
            heading
            and headline_linked is False
            and linked
            and page.tags[i] != "h1"
            and len(text.split()) > TEASER_WORDS
        ):
            # A linked subheading after an unlinked headline is a teaser's title on a listing
            # page: the bylines and dates after it are its story's, not the page's. (A
            # linked name is the author's own heading: "Craig McCarthy", "EDB Team".)
            teaser = True
            break
        signed = bool(authors)
        element = page.node_elements[page.nodes[i]] if page.node_elements else None
        starter = None if authors else (THREAD_STARTER_RE.match(text) or THREAD_POST_RE.search(text))
        if starter:
            # A thread's header: "Thread starter felixen", "sanmartinwatch Discussion starter",
            # "Post by changingtimes »".
            authors.append(starter.group(1) or starter.group(2))
        elif (
            not authors
            and (BYLINE_START.match(text) or _marked_byline(page, i, element))
            and not _headline_text(page, i, text)
        ):
            authors.extend(_byline_names(element, text))  # the first byline only
        elif not authors and element is not None and page.tags[i] != "li" and not _headline_text(page, i, text):
            # A block that holds its author's name in an element of its own ("<a
            # class="author-name">", "<a href="/authors/chris-toy">"), or "Written by" and one.
            # (A list item naming an author is a list's: a front page's teasers, their writers.)
            authors.extend(_name_element(element) or _labelled_name(text, previous))
        elif not authors and page.tags[i] not in HEADINGS:
            authors.extend(_labelled_name(text, previous))
        if authors and not signed:
            signed_under_subheading = subheading
            signed_at = i
        subheading = subheading or (heading and headline_linked is not None and page.tags[i] != "h1")
        if ACTIVITY_RE.search(text):
            previous = text
            continue
        if element is not None and page.node_chars[page.nodes[i]] <= MAX_BYLINE_CHARS:
            for time_el in element.iter("time"):
                stamp = time_el.get("datetime") or time_el.text or ""  # "" is dropped below
                (modified if _says_updated(time_el, element, text) else published).append(stamp)
        if page.chars[i] <= MAX_DATE_LINE_CHARS and _has_digit(text):
            # "Published on July 18, 2025", "Aug 16, 2019 - Updated July 9, 2025", and a date
            # after a "Last updated:" block of its own.
            updated = UPDATED_RE.search(text)
            if updated:
                published.append(text[: updated.start()])
                modified.append(text[updated.end() :])
            elif UPDATED_RE.search(previous):
                modified.append(text)
            else:
                published.append(text)
        previous = text
    if (teaser and signed_under_subheading) or (
        headline_linked is None and signed_at >= 0 and _repeated(page, signed_at, window)
    ):
        # On a listing, a byline under a subheading is its item's ("The House of Modernity");
        # on a page without a headline (the window is the content's first blocks), one repeated
        # with other names is each card's (a front page's teasers).
        authors = []
    return {
        "authors": authors,
        "date_published": [d for d in published if d],
        "date_modified": [d for d in modified if d],
        "listing": teaser,
    }


def from_microdata(page: Page) -> Found:
    """schema.org microdata in <body>: the first itemprop=author (its itemprop=name, else its
    short text) and datePublished / dateModified. A forum thread's first post carries its
    starter's name this way; the walk kept these elements (metadata.note_microdata)."""
    found = page.microdata
    if not found:
        return {}
    authors = []
    elements = found.get("author", []) or found.get("creator", [])
    if _teasers(elements):
        elements = []  # a listing: each teaser an article item with its author
    for el in elements:
        if _owner_type(el).endswith(OTHERS_ITEMS):
            continue  # a review's, an answer's or a product's author is not the page's
        if _in_footer(el):
            continue  # "Site designed and developed by <span itemprop=creator>": the site's credit
        name = _microdata_name(el)
        if name:
            authors.append(name)
        break
    return {
        "authors": authors,
        "date_published": [
            _microdata_value(el) for el in found.get("datepublished", [])[:1] + found.get("datecreated", [])[:1]
        ],
        "date_modified": [_microdata_value(el) for el in found.get("datemodified", [])[:1]],
    }


#: schema.org types of a page that sells or lists things (with no article object beside them).
PRODUCT_TYPES = frozenset(("Product", "ProductGroup", "OfferCatalog"))
NOT_ARTICLE_TYPES = PRODUCT_TYPES | {"ItemList", "CollectionPage", "SearchResultsPage"}


def declares_no_article(page: Page) -> bool:
    """The page states that it is a product or a listing: `og:type` product (or product.group),
    or a JSON-LD Product, ItemList, CollectionPage... and no article object, unless `og:type`
    says article (a review's Product, a news story's list of related links)."""
    og_type = (page.meta.get("og:type") or "").lower()
    if og_type.startswith("product"):
        return True
    return (
        og_type != "article"
        and "article" not in page.jsonld
        and not NOT_ARTICLE_TYPES.isdisjoint(page.jsonld.get("types") or ())
    )


def declares_product(page: Page) -> bool:
    """The page states that it sells something: `og:type` product, or a JSON-LD Product,
    ProductGroup or OfferCatalog (whatever else it declares)."""
    return (page.meta.get("og:type") or "").lower().startswith("product") or not PRODUCT_TYPES.isdisjoint(
        page.jsonld.get("types") or ()
    )


#: schema.org types of a page that is a discussion: its replies, marked up as comments, are content.
THREAD_TYPES = frozenset(("DiscussionForumPosting", "QAPage"))


def declares_thread(page: Page) -> bool:
    """The page states in JSON-LD or microdata that it is a forum thread or a Q&A page."""
    if not THREAD_TYPES.isdisjoint(page.jsonld.get("types") or ()):
        return True
    return any(
        _owner_type(el).rpartition("/")[2] in THREAD_TYPES for elements in page.microdata.values() for el in elements
    )


#: schema.org types of an article item: on a listing, each teaser is one, with its author.
ARTICLE_ITEMS = ("Article", "BlogPosting", "NewsArticle", "Report")


def _teasers(elements: list[etree._Element]) -> bool:
    """Whether the microdata authors belong to two or more article items (a blog's front page:
    each teaser a BlogPosting with its author), not to the page's one article."""
    items = set()
    for el in elements:
        item = _owner_item(el)
        if item is not None and (item.get("itemtype") or "").rstrip("/ ").endswith(ARTICLE_ITEMS):
            items.add(item)
    return len(items) > 1


def _owner_item(el: etree._Element) -> etree._Element | None:
    """The nearest itemscope ancestor of a microdata property (the item it belongs to)."""
    for ancestor in islice(el.iterancestors(), MICRODATA_ELEMENTS):
        if ancestor.get("itemscope") is not None:
            return ancestor
    return None


def _owner_type(el: etree._Element) -> str:
    """The schema.org type of the item a microdata property belongs to (its nearest itemscope
    ancestor's itemtype, "https://schema.org/Review"), or ""."""
    for ancestor in islice(el.iterancestors(), MICRODATA_ELEMENTS):
        if ancestor.get("itemscope") is not None:
            return (ancestor.get("itemtype") or "").rstrip("/ ")
    return ""


def _in_footer(el: etree._Element) -> bool:
    """Whether an element sits in the page's footer (a <footer>, or an id or class "footer"),
    not an article's own footer (which may hold its byline: one inside <article> or <main>)."""
    footer = False
    for ancestor in islice(el.iterancestors(), MICRODATA_ELEMENTS):
        if ancestor.tag in ("article", "main"):
            return False
        marks = f"{ancestor.get('id') or ''} {ancestor.get('class') or ''}".lower()
        footer = footer or ancestor.tag == "footer" or "footer" in marks
    return footer


def _microdata_value(el: etree._Element) -> str | None:
    """A microdata property's value: content or datetime attribute, else its short text."""
    value = el.get("content") or el.get("datetime")
    if value is None and el.tag != "meta":
        value = " ".join(islice(el.itertext(), 20))[: MAX_DATE_LINE_CHARS * 2]
    return value


def _microdata_name(el: etree._Element) -> str | None:
    """The name of an itemprop=author element: its itemprop=name (a forum's user card holds
    the name among "Member", "Joined", post counts), else its text when that is short."""
    if el.tag == "meta":
        return el.get("content")
    for sub in islice(el.iter(), MICRODATA_ELEMENTS):
        if (sub.get("itemprop") or "").lower() == "name":
            return sub.get("content") or " ".join("".join(islice(sub.itertext(), 20)).split())
    text = " ".join("".join(islice(el.itertext(), 20)).split())
    return text if len(text) <= MAX_NAME_CHARS else None


def shown_organisations(
    page: Page, window: range, organisations: list[str], sources: tuple[Found, ...], url: str | None
) -> list[str]:
    """The organisations given as the author (JSON-LD `Organization`), unless one is the site
    itself (its name is the publisher's, `og:site_name` or the host's: Docker Inc on
    docs.docker.com, HashiCorp, Terminix) and the page does not show it as a byline near its
    headline ("Supermove" under it, "Posted By / Loona Construction"): a company stated as
    the author of every page of its site is its publisher, not a byline the reader sees. An
    organisation other than the site ("Contributors to Wikimedia projects") is kept as stated."""
    names = clean_authors(organisations)
    if not names:
        return names
    site = _site_keys(sources, url)
    if not any(isinstance(raw, str) and _key(raw) in site for raw in organisations):
        return names
    wanted = {name.casefold() for name in names}
    for i in window:
        if page.chars[i] <= MAX_NAME_CHARS and not wanted.isdisjoint(
            name.casefold() for name in split_names(page.texts[i])
        ):
            return names
    return []


def _site_authors(authors: list[str], shown: list[str], sources: tuple[Found, ...], url: str | None) -> bool:
    """Whether the metadata's authors are all the site's own name and the byline's are not."""
    site = _site_keys(sources, url or "")
    return all(_key(name) in site for name in authors) and not any(
        _key(name) in site or _is_handle(name) for name in shown
    )


def _site_keys(sources: tuple[Found, ...], url: str | None) -> set[str]:
    """The site's own names, as _key gives them: the JSON-LD WebSite and publisher names,
    og:site_name and the like, and the labels of the URL's host ("docker" of docs.docker.com)."""
    names = [v for found in sources[:BYLINE] for v in found.get("site_name", ()) if isinstance(v, str)]
    try:
        host = (urlsplit(url).hostname or "") if url else ""
    except ValueError:  # "http://[::1": no host to read
        host = ""
    return {key for key in map(_key, [*names, *host.split(".")]) if key}


def _key(name: str) -> str:
    """A name's letters and digits, case folded: "Docker, Inc." and "docker inc" are one."""
    return "".join(ch for ch in name.casefold() if ch.isalnum())


def page_byline(page: Page) -> list[str]:
    """The first byline anywhere on a page whose metadata, byline window and microdata name
    no author: a blog that signs its post at the end or in a side column ("Posted by Jane
    Doe", an "author" box): a block marked byline or author by its classes ("By" alone
    is not enough out there: "Shop by Gender, Age"); the walk left comment sections out."""
    for i, text in enumerate(page.texts):
        if page.chars[i] > MAX_BYLINE_CHARS:
            continue
        tokens = page.tokens[i]
        if not tokens or not BYLINE_TOKENS.search(" ".join(tokens)) or _headline_text(page, i, text):
            continue  # (no wrapper of it says byline or author: the quick test)
        element = page.node_elements[page.nodes[i]] if page.node_elements else None
        if _marked_byline(page, i, element):
            names = _byline_names(element, text)
        else:
            names = _name_element(element) if element is not None else []
        if names:
            return [] if _repeated(page, i) else names
    return []


def _repeated(page: Page, i: int, blocks: range | None = None) -> bool:
    """Whether another short block of the page (or of `blocks`) with block `i`'s tag and class
    words names someone else: a byline repeated so is a list's, each card's or paper's
    ("Authors: ..." on arXiv's listing, a blog's cards on a service page), not the page's."""
    tag, tokens, text = page.tags[i], page.tokens[i], page.texts[i]
    if not tokens:
        return False  # blocks without class words are alike everywhere (plain paragraphs)
    return any(
        page.tokens[j] == tokens
        and page.tags[j] == tag
        and page.chars[j] <= MAX_BYLINE_CHARS
        and page.texts[j] != text
        and _NAMES_RE.match(_name_text(page.texts[j]))
        for j in (blocks if blocks is not None else range(len(page.texts)))
        if j != i
    )


def page_date(page: Page) -> str | None:
    """The page's first date line anywhere ("April 8, 2024", "Post by jane » 11. Sep 2024",
    "Published On: 15 August 2025"), for a page whose metadata, byline window and URL give
    none: a blog that shows its date after the article or in a side column, a forum thread's
    first post. A line that is mostly a link (a teaser's) or about members' activity is not it.
    At most PAGE_DATE_LINES lines are read."""
    tried = 0
    for i, text in enumerate(page.texts):
        if page.chars[i] > MAX_DATE_LINE_CHARS or not _has_digit(text):
            continue
        if page.link_chars[i] * 2 > page.chars[i] or ACTIVITY_RE.search(text) or not DATE_TEXT_RE.search(text):
            continue
        if page.tokens[i] and any(word in token for token in page.tokens[i] for word in OTHERS_DATES):
            continue
        found = normalize_date(text)
        if found:
            return found
        tried += 1
        if tried >= PAGE_DATE_LINES:
            break
    return None


def from_url(url: str | None) -> Found:
    """A date in the URL's path (/2024/03/15/)."""
    found = url_date(url)
    return {"date_published": [found]} if found else {}


# --- helpers ---------------------------------------------------------------------------


def byline_window(page: Page, mask: np.ndarray | None, title: str | None) -> range:
    """The blocks where a byline belongs: around the headline (an h1), else around the first
    block of the content the model found. Sidebars, comments and teasers are far from both."""
    n = len(page.texts)
    anchor = None
    for i in page.tag_positions("h1"):
        if title is None or page.texts[i] == title:
            anchor = i
            break
    if anchor is None and mask is not None and mask.any():
        anchor = int(mask.argmax())
    if anchor is None:
        return range(0)
    return range(max(0, anchor - WINDOW_BEFORE), min(n, anchor + WINDOW_AFTER + 1))


#: A bare name: one to four capitalised words, nothing else.
_BARE_NAME_RE = re.compile(r"^(?:[A-ZÀ-ÖØ-Þ][\w'’.-]*\s?){1,4}$")
#: A job title after a byline's name ("by Daniel Burstein, Senior Director, Content & Marketing"):
#: cut there, or its words are taken for names.
_JOB_TAIL_RE = re.compile(
    r",\s*(?:[\w.&-]+\s+){0,3}(?:director|editor|writer|reporter|correspondent|manager|"
    r"founder|officer|president|analyst|consultant|expert|specialist|journalist|"
    r"columnist|producer|strategist|engineer|scientist|professor|head|chief)s?\b.*$",
    re.I | re.S,
)
#: A link to a tag's or a category's page: its text is a topic, not a name.
_CATEGORY_HREF_RE = re.compile(r"/(?:tags?|categor(?:y|ies)|topics?|section|subjects?)/", re.I)


def _marked_byline(page: Page, i: int, element: etree._Element | None) -> bool:
    """Whether a block's classes mark a byline: its own or its parent's ("post-byline", an
    "author-info" box, not an "author-description" line), and its text is names (after "By",
    before a date or a job title: "Jane Doe · March 3, 2024", not "Visit the Acme Store" in
    an Amazon "bylineInfo"); or it holds a link to its author's page (`rel=author`: the
    Guardian's byline, whose classes are hashes)."""
    if element is None:
        return False
    marks = _near_marks(element)
    # (the marks as written hold every match their words do: most blocks stop at this search)
    if BYLINE_TOKENS.search(marks):
        near = [word for word in _WORD_SPLIT_RE.split(marks) if word]
        if (
            BYLINE_TOKENS.search(" ".join(near))
            and NOT_BYLINE_TOKENS.isdisjoint(near)
            and _NAMES_RE.match(_name_text(page.texts[i]))
        ):
            return True
    return any("author" in (a.get("rel") or "").lower() for a in islice(element.iter("a"), 5))


def _near_marks(element: etree._Element) -> str:
    """The class and id values of an element and its parent, lower case: their words
    (letters only: "post-byline" gives "post", "byline") are the block's own class words."""
    marks = []
    el: etree._Element | None = element
    for _ in range(OWN_LEVELS):
        if el is None:
            break
        marks.append(f"{el.get('class') or ''} {el.get('id') or ''}".lower())
        el = el.getparent()
    return " ".join(marks)


_WORD_SPLIT_RE = re.compile(r"[^a-z]+")


#: A user name: one word in lower case, or with digits, dots or underscores, or a capital
#: after a lower-case letter ("jrobison", "andrew.keaveney", "luiz4", "KatieS").
_HANDLE_RE = re.compile(r"^(?:[a-z][a-z0-9._-]*|\S*[0-9._]\S*|\S*[a-z][A-Z]\S*)$")


def _is_handle(name: str) -> bool:
    return bool(_HANDLE_RE.match(name))


def _headline_text(page: Page, i: int, text: str) -> bool:
    """A heading that is no byline: over four words and not starting "By" (a card's
    headline inside an "author-..." wrapper, "McKinsey and Inception sign a partnership")."""
    return page.tags[i] in HEADINGS and len(text.split()) > SENTENCE_WORDS and not BYLINE_START.match(text)


def _byline_names(element: etree._Element | None, text: str) -> list[str]:
    """Names of a byline block: the element in it that holds its name (see _name_element),
    else its text without a job title or a date after the name."""
    if element is not None:
        names = _name_element(element)
        if names:
            return names
        if _category_links(element, _name_text(text)):
            return []  # "Personal finance" (a date beside it), a tag's link in the byline's row: a topic
    start = BYLINE_START.match(text)
    if start and text[start.end() - 1].islower() and len(_JOB_TAIL_RE.sub("", text).split()) > SENTENCE_WORDS:
        # "By using VS Code, you agree...", "By the end of this tutorial, ...": a sentence
        # ("by jsteinhardt" is a user name's byline).
        return []
    text = _name_text(text)
    return [text] if split_names(text) else []


def _name_text(text: str) -> str:
    """A byline's text without what follows its names: a job title, or a date and what joins
    it ("Andrew Gerrand 4 August 2010", "Jane Doe on March 3, 2024")."""
    text = _JOB_TAIL_RE.sub("", text)
    dated = DATE_TEXT_RE.search(text)
    if dated and dated.start() > 0:
        text = _DATE_JOINER_RE.sub("", text[: dated.start()])
    return text


#: What joins a byline's name to the date after it ("Jane Doe on", "Jane Doe ·").
_DATE_JOINER_RE = re.compile(r"(?:\s+(?:on|at|am|le|el|il|den|op|de)\b|[\s,|·•–—-])+$", re.I)
#: A class word of the element that holds a byline's name: "author", "author-name", "authorName",
#: "gh-author-name-list", "hero-banner__author".
_NAME_CLASS_RE = re.compile(r"^[\w-]*?author(?:s?[-_]*name)?(?:[-_]*list)?$", re.I)
#: Names, and what the byline's text may hold around them: "By" (PREFIX_RE), a role in brackets,
#: a separator and what follows ("Jane Doe | Staff"), several names ("Jane Doe and John Roe").
_NAMES_RE = re.compile(
    r"^\s*(?:(?:[\w ]{0,20}\s)?(?i:by|von|par|por)\s*:?\s+(?:the\s+)?)?"
    r"(?:[A-ZÀ-ÖØ-Þ][\w'’.-]*\s?){1,4}(?:(?:,\s*|\s*&\s*|\s+(?:and|und|et|y)\s+)(?:[A-ZÀ-ÖØ-Þ][\w'’.-]*\s?){1,4})*"
    r"(?:\s*\([^()]{1,40}\))?(?:\s*(?:[|·•⋅●/,]|[-–—]\s).*)?$"
)
#: A link to an author's page ("/author/jane-doe/", "/authors/chris-toy").
_AUTHOR_HREF_RE = re.compile(r"/(?:authors?|writers?|contributors?)/[^/?#]+/?(?:[?#]|$)", re.I)


def _hcard_name(el: etree._Element, classes: list[str]) -> bool:
    """An hCard's formatted name ("fn" inside a "vcard": `<span class="author vcard"><a
    class="url fn n">`); "fn" alone is a function's name in code documentation (rustdoc)."""
    if "fn" not in classes:
        return False
    return any("vcard" in (a.get("class") or "").split() for a in islice(el.iterancestors(), 3))


def _name_element(element: etree._Element) -> list[str]:
    """The names in the element of a block that holds them: its `rel=author` or
    `itemprop=author` element, else one whose class says so ("author", "author-name", hCard's
    "fn"), or a link to an author's page ("/authors/chris-toy"); the texts of its links when it
    has some ("Jane Doe, John Roe" as two links), else its text."""
    marked = []  # elements whose class or address says so, in order: read if no rel/itemprop one names
    for el in islice(element.iter(), NAME_ELEMENTS):
        itemprop = el.get("itemprop")
        if (itemprop == "author" or "author" in (el.get("rel") or "")) and not (
            itemprop and _owner_type(el).endswith(OTHERS_ITEMS)  # a review's author, not the page's
        ):
            name = " ".join((_microdata_name(el) or "").split()) if itemprop else ""
            name = name or " ".join("".join(el.itertext()).split())
            if name:
                return [name]
        if not isinstance(el.tag, str):
            continue  # a comment
        marks = el.get("class")
        # (the class words are matched only when the substrings they need are there: most are not)
        if marks and ("author" in marks.lower() or "fn" in marks):
            classes = marks.split()
            if any(_NAME_CLASS_RE.match(c) for c in classes) or _hcard_name(el, classes):
                marked.append(el)
                continue
        if el.tag == "a" and _AUTHOR_HREF_RE.search(el.get("href") or ""):
            marked.append(el)
    for el in marked:
        texts = [" ".join("".join(a.itertext()).split()) for a in islice(el.iter("a"), 10)]
        texts = [t for t in texts if t] or [" ".join("".join(el.itertext()).split())]
        if all(_NAMES_RE.match(_name_text(t)) or _HANDLE_RE.match(t) for t in texts) and clean_authors(texts):
            return texts
    return []


#: A byline's label alone in its block ("Written by", "Author:"), its name in the next block.
_LABEL_ONLY_RE = re.compile(r"^\s*(?:(?:written|posted|published)\s+)?by\s*:?\s*$|^\s*authors?\s*:?\s*$", re.I)
#: A label glued to its name ("Written by:Elise Nass").
_LABELLED_RE = re.compile(r"^\s*(?:(?:written|posted|published)\s+by|authors?)\s*:\s*(\S.{0,60})$", re.I)
#: A date line ending with its byline ("September 1st, 2023 By Emily Norwood", "Published
#: August 7, 2023 by Nicole Burke").
_DATED_BY_RE = re.compile(r"\s(?i:by)\s+((?:[A-ZÀ-ÖØ-Þ][\w'’.-]*\s*){1,4})$")


def _labelled_name(text: str, previous: str) -> list[str]:
    """The name of a byline written as a label and a name in two blocks ("Written by" /
    "Edzel Tabing"), glued ("Written by:Elise Nass"), or after a date ("September 1st, 2023
    By Emily Norwood")."""
    if _LABEL_ONLY_RE.match(previous) and _BARE_NAME_RE.match(text):
        return split_names(text)
    labelled = _LABELLED_RE.match(text)
    if labelled:
        return split_names(labelled.group(1))
    dated = _DATED_BY_RE.search(text)
    return split_names(dated.group(1)) if dated and DATE_TEXT_RE.search(text) else []


def _category_links(element: etree._Element, text: str) -> bool:
    """Whether a block's text is its links' to tag or category pages (rel=tag or category,
    /tag/, /category/, /topics/ in the address): the page's topics ("Business", "tech")."""
    links = list(islice(element.iter("a"), 10))
    if not links:
        return False
    linked = 0
    for a in links:
        if not (
            {"tag", "category"} & set((a.get("rel") or "").lower().split())
            or _CATEGORY_HREF_RE.search(a.get("href") or "")
        ):
            return False
        linked += len("".join(a.itertext()).strip())
    return linked * 2 >= len(text)


def _says_updated(time_el: etree._Element, block: etree._Element | None, text: str) -> bool:
    """Whether a <time> is the last update: its itemprop or class, or its block's classes up
    to the block element ("dateblock-updated"), or "Updated" written just before it."""
    if "modif" in (time_el.get("itemprop") or "").lower():
        return True
    el: etree._Element | None = time_el
    for _ in range(4):
        if el is None:
            break
        classes = (el.get("class") or "").lower()
        if "updat" in classes or "modif" in classes:
            return True
        if el is block:
            break
        el = el.getparent()
    previous, parent = time_el.getprevious(), time_el.getparent()
    before = (previous.tail if previous is not None else None) or (parent.text if parent is not None else None) or ""
    return bool(UPDATED_RE.search(before[-30:]))


def _ld_authors(value: object, people: dict[object, str]) -> tuple[list[str], list[str]]:
    """(person names, organisation names) of a JSON-LD author: a string, a Person, an
    Organization, an {"@id"} reference to one, or a list of these."""
    persons: list[str] = []
    organisations: list[str] = []
    items = value if isinstance(value, list) else [value]
    for item in items[:20]:
        if isinstance(item, str):
            persons.append(item)
        elif isinstance(item, dict):
            kind = item.get("@type")
            kind = kind[0] if isinstance(kind, list) and kind else kind
            name = _ld_name(item) or people.get(item.get("@id"))
            if name is None:
                continue
            (organisations if isinstance(kind, str) and "Organization" in kind else persons).append(name)
    return persons, organisations


def _ld_name(value: object) -> str | None:
    if isinstance(value, dict):
        name = value.get("name")
        if isinstance(name, list) and name:
            name = name[0]
        return name if isinstance(name, str) else None
    return None


def _ld_urls(value: object) -> list[str]:
    items = value if isinstance(value, list) else [value]
    urls: list[str] = []
    for item in items[:5]:
        if isinstance(item, dict):
            item = item.get("url") or item.get("contentUrl")  # not "@id": a name, not the image
        if isinstance(item, str):
            urls.append(item)
    return urls


def _meta_published(meta: dict[str, str]) -> list[str]:
    """The publication dates of the <meta> names known, else of any name saying "published date"."""
    found = [meta[k] for k in META_PUBLISHED if k in meta]
    found += _parsely_date(meta)
    if not found:
        found = [v for k, v in meta.items() if "pub" in k and META_PUBLISHED_RE.search(k)]
    return found


def _parsely_date(meta: dict[str, str]) -> list[str]:
    """The "pub_date" of Parse.ly's <meta name="parsely-page" content="{...}"> (a JSON object,
    read by a pattern: the content kept may be cut short)."""
    found = _PARSELY_DATE_RE.search(meta.get("parsely-page", ""))
    return [found.group(1)] if found else []


def _clean_text(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(value[:2000].split())
    if "&" in text:
        text = html.unescape(text)  # "&amp;" escaped twice by the site
    if "<" in text and ">" in text:
        text = " ".join(re.sub(r"<[^>]*>", " ", text).split())
    return clean_text(text) or None


def _absolute(value: object, base: str | None) -> str | None:
    return safe_url(value.strip(), base) if isinstance(value, str) and len(value) < 2000 else None
