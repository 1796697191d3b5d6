"""The page's metadata from <head> and JSON-LD: title, Open Graph, <meta>, base and canonical URLs.

Read during the walk (``<head>`` and ``ld+json`` scripts are skipped subtrees
there), into the Page's metadata fields. ``metadata/article.py`` makes the article's
authors, dates, language... out of them.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from .words import drop_controls

if TYPE_CHECKING:
    from lxml import etree

    from ..jsondata import JsonObject
    from .page import Page

#: <meta> names kept per page (a page with thousands of them costs no more than this).
MAX_META = 300
#: Characters kept of a <meta> content.
MAX_META_CHARS = 1000
#: ld+json scripts longer than this are not parsed (bounded time on a catalogue dumped as JSON-LD).
MAX_JSONLD_CHARS = 1_000_000
#: What metadata/article.py reads of the page's schema.org article object.
ARTICLE_KEYS = (
    "author",
    "creator",
    "datePublished",
    "dateCreated",
    "dateModified",
    "publisher",
    "image",
    "thumbnailUrl",
    "description",
    "inLanguage",
    "headline",
    "url",
)
#: schema.org types that describe the page as a whole when no article type does.
PAGE_TYPES = (
    "WebPage",
    "ItemPage",
    "AboutPage",
    "ProfilePage",
    "QAPage",
    "FAQPage",
    "CollectionPage",
    "MedicalWebPage",
    "Recipe",
    "VideoObject",
    "Review",
    "Event",
    "Product",
    "Course",
    "Question",
    "DiscussionForumPosting",
    "SocialMediaPosting",
)


def is_article_type(kind: str) -> bool:
    """Article, NewsArticle, BlogPosting, Report, LiveBlogPosting, TechArticle..."""
    return kind.endswith(("Article", "BlogPosting", "Report")) or kind in ("LiveBlogPosting", "Blog")


#: Schema.org types whose body is a list of steps, and the property that holds them.
STEP_LISTS = {"HowTo": "step", "Recipe": "recipeInstructions"}


#: itemprop names kept from <body> (microdata), as metadata/article.from_microdata reads them.
MICRODATA_PROPS = frozenset(("author", "creator", "datepublished", "datecreated", "datemodified"))
#: Elements kept per itemprop name: the article's own come first; a thread's replies follow.
MAX_MICRODATA = 5


def note_microdata(prop: str, el: etree._Element, page: Page) -> None:
    """Keep a <body> element with itemprop=author, datePublished... (`prop` in lower case)."""
    kept = page.microdata.setdefault(prop, [])
    if len(kept) < MAX_MICRODATA:
        kept.append(el)


def read_body_meta(el: etree._Element, page: Page) -> None:
    """A <meta itemprop=...> in <body> (skipped by the walk as <meta> in <head> is)."""
    prop = el.get("itemprop")
    if prop and prop.lower() in MICRODATA_PROPS:
        note_microdata(prop.lower(), el, page)


def read_head(head: etree._Element, page: Page) -> None:
    """Title, Open Graph tags, JSON-LD, the base and the canonical URL from <head>; the texts
    without control characters, as the walk reads the body's (words.drop_controls)."""
    for el in head.iter("title", "meta", "script", "base", "link"):
        tag = el.tag
        if tag == "title":
            if page.title is None and el.text:
                page.title = " ".join(drop_controls(el.text).split())
        elif tag == "meta":
            prop = (el.get("property") or el.get("name") or el.get("itemprop") or el.get("http-equiv") or "").lower()
            content = el.get("content")
            if not content:
                continue
            content = drop_controls(content)
            if prop and len(page.meta) < MAX_META:
                page.meta.setdefault(prop, content[:MAX_META_CHARS])
            if prop.startswith("og:"):
                page.og.setdefault(prop[3:], " ".join(content.split()))
            elif prop in ("description", "twitter:title", "twitter:description"):
                page.og.setdefault(prop.replace("twitter:", "tw_"), " ".join(content.split()))
        elif tag == "script":
            if (el.get("type") or "").endswith("ld+json") and el.text:
                read_jsonld(el.text, page.jsonld)
        elif tag == "base":
            if page.base_href is None and el.get("href"):
                page.base_href = el.get("href")
        elif tag == "link":
            if page.canonical_url is None and "canonical" in (el.get("rel") or "").lower().split():
                page.canonical_url = (el.get("href") or "").strip() or None


def read_jsonld(text: str, jsonld: JsonObject) -> None:
    """Into `jsonld`: the longest articleBody, the first headline, the main @type and all types,
    the text of the first how-to or recipe (its description and steps), and whether the page
    says its article is behind a paywall (isAccessibleForFree: false).

    Iterative and bounded (200 items, 50 per list): JSON-LD can be large and deep.
    """
    if len(text) > MAX_JSONLD_CHARS:
        return
    try:
        data = json.loads(_uncdata(text))
        if _SURROGATE_ESCAPE_RE.search(text) or _CONTROL_ESCAPE_RE.search(text):
            data = _clean_strings(data)
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
            if isinstance(kind, str) and kind in STEP_LISTS and "steps" not in jsonld:
                jsonld["steps"] = _steps_text(item.get("description"), item.get(STEP_LISTS[kind]))
            if isinstance(body, str) and len(body) > len(jsonld.get("articleBody", "")):
                jsonld["articleBody"] = body
            if isinstance(kind, str):
                if "type" not in jsonld and kind not in (
                    "WebSite",
                    "Organization",
                    "BreadcrumbList",
                    "WebPage",
                    "ImageObject",
                    "Person",
                ):
                    jsonld["type"] = kind
                jsonld.setdefault("types", []).append(kind)
                _keep_entity(kind, item, jsonld)
            if item.get("isAccessibleForFree") in (False, "false", "False"):
                jsonld["paywalled"] = True
            headline = item.get("headline")
            if isinstance(headline, str) and "headline" not in jsonld:
                jsonld["headline"] = headline
            graph = item.get("@graph")
            if graph is not None:
                stack.append(graph)
            main = item.get("mainEntity")
            if isinstance(main, dict | list):
                stack.append(main)


#: A JSON escape of a UTF-16 surrogate ("\\ud83d"): json.loads joins a pair into one character but
#: keeps a lone one, which no output file can encode ("surrogates not allowed").
_SURROGATE_ESCAPE_RE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
#: A JSON escape of a control character (words.drop_controls): "\\u0002", "\\u0090", "\\b", "\\f".
_CONTROL_ESCAPE_RE = re.compile(r"\\(?:u00(?:[01][0-9a-fA-F]|7[fF]|[89][0-9a-fA-F])|[bf])")


def _clean_strings(value: object) -> object:
    """`value` (decoded JSON) with every lone surrogate in its strings and keys made U+FFFD, and
    without control characters."""
    if isinstance(value, str):
        return drop_controls(_SURROGATE_RE.sub("\ufffd", value))
    if isinstance(value, list):
        return [_clean_strings(item) for item in value]
    if isinstance(value, dict):
        return {_clean_strings(key): _clean_strings(item) for key, item in value.items()}
    return value


def _uncdata(text: str) -> str:
    """The JSON of a script wrapped for XHTML: "<![CDATA[ {...} ]]>", "//<![CDATA[ ... //]]>"."""
    head = text.lstrip()[:20]
    if "<![CDATA[" not in head:
        return text
    start = text.index("<![CDATA[") + 9
    end = text.rfind("]]>")
    body = text[start : end if end > start else len(text)].rstrip()
    return body[:-2] if body.endswith(("//", "/*")) else body


def _steps_text(description: object, steps: object) -> str:
    """A how-to or a recipe as text: its description, then each step's text, one a line."""
    lines = [description] if isinstance(description, str) else []
    todo = list(steps[:50]) if isinstance(steps, list) else [steps]
    visits = 0
    while todo and len(lines) < 200 and visits < 1000:
        step = todo.pop(0)
        visits += 1
        if isinstance(step, str):
            lines.append(step)
        elif isinstance(step, dict):
            # A HowToSection holds steps; a HowToStep its text or HowToDirections.
            text = step.get("text")
            if isinstance(text, str):
                lines.append(text)
            inner = step.get("itemListElement")
            if isinstance(inner, list | dict):
                todo[:0] = inner[:50] if isinstance(inner, list) else [inner]
    return "\n".join(lines)


def _keep_entity(kind: str, item: JsonObject, jsonld: JsonObject) -> None:
    """The first article object (else the first page-like object), the site's name and the
    publisher, as metadata/article.py reads them."""
    if is_article_type(kind):
        slot = "article"
    elif kind in PAGE_TYPES:
        slot = "page"
    elif kind == "WebSite":
        if isinstance(item.get("name"), str):
            jsonld.setdefault("site_name", item["name"])
        return
    elif kind == "BreadcrumbList":
        if "breadcrumbs" not in jsonld:
            jsonld["breadcrumbs"] = _breadcrumbs(item.get("itemListElement"))
        return
    elif kind in ("Person", "Organization", "NewsMediaOrganization", "Corporation"):
        name, ref = item.get("name"), item.get("@id")
        if isinstance(name, str):
            if kind != "Person":
                jsonld.setdefault("organization", name)
            if isinstance(ref, str) and len(jsonld.setdefault("people", {})) < 50:
                jsonld["people"][ref] = name  # an article's author may be {"@id": ...}
        return
    else:
        return
    if slot not in jsonld:
        jsonld[slot] = {key: item[key] for key in ARTICLE_KEYS if key in item}


#: The crumbs of a BreadcrumbList kept (a trail, not a site map).
MAX_BREADCRUMBS = 20


def _breadcrumbs(elements: object) -> list[tuple[str | None, str | None]]:
    """A BreadcrumbList's (name, URL) pairs in the order of their position: each ListItem's
    ``name`` and ``item`` (a URL, or an object with ``@id``/``url`` and ``name``)."""
    if not isinstance(elements, list):
        return []
    crumbs = []
    for order, element in enumerate(elements[:MAX_BREADCRUMBS]):
        if not isinstance(element, dict):
            continue
        item = element.get("item")
        name, url = element.get("name"), item
        if isinstance(item, dict):
            name = name or item.get("name")
            url = item.get("@id") or item.get("url")
        position = element.get("position")
        rank = position if isinstance(position, int | float) else order
        if isinstance(position, str) and position.strip().isdigit():
            rank = int(position)
        if isinstance(name, str) or isinstance(url, str):
            crumbs.append((rank, order, name if isinstance(name, str) else None, url if isinstance(url, str) else None))
    return [(name, url) for _, _, name, url in sorted(crumbs)]


def document_lang(root: etree._Element) -> str | None:
    """The `lang` of the document's root element (<html lang>), whatever part of it is walked."""
    return root.getroottree().getroot().get("lang")
