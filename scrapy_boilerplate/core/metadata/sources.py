"""Where each article metadata field came from: JSON-LD, <meta> tags, the byline, microdata, the URL.

Asked only by the explain page (render/explain.py), after `article_metadata` made the fields:
the sources are read again (the <head> and JSON-LD were read during the walk, the byline window
is a few blocks) and each field is traced to the most trusted source that gives its value, as
article_metadata takes it. A crawl never pays for this.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..render.urls import page_base
from .article import (
    _absolute,
    _clean_text,
    byline_window,
    from_byline,
    from_jsonld,
    from_meta,
    from_microdata,
    from_url,
)
from .authors import clean_authors
from .dates import normalize_date
from .language import language_code

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

    from ..document.page import Page
    from ..jsondata import JsonObject
    from .article import ArticleMetadata

#: The sources' names, in article_metadata's order (JSONLD, META, BYLINE, MICRODATA, URL).
SOURCE_NAMES = ("JSON-LD", "<meta> tags", "byline", "microdata", "URL")


def field_sources(
    page: Page, mask: np.ndarray | None, title: str | None, url: str | None, meta: ArticleMetadata
) -> dict[str, str]:
    """Field name -> the source of its value in `meta` (made by article_metadata from the same
    page, mask, title and URL); fields without a value are left out."""
    base = page_base(url or page.base_url, page.base_href)
    sources = (
        from_jsonld(page),
        from_meta(page),
        from_byline(page, byline_window(page, mask, title)),
        from_microdata(page),
        from_url(url),
    )
    found: dict[str, str] = {}
    if meta.authors:
        found["authors"] = _authors_source(sources, meta.authors)
    for name in ("date_published", "date_modified"):
        value = getattr(meta, name)
        if value:
            found[name] = _source(
                sources, name, value[:10], lambda v: (normalize_date(v) or "")[:10], "a date line on the page"
            )
    cleaners: dict[str, Callable[[Any], str | None]] = {
        "site_name": _clean_text,
        "description": _clean_text,
        "canonical_url": lambda v: _absolute(v, base),
        "image": lambda v: _absolute(v, base),
    }
    for name, clean in cleaners.items():
        value = getattr(meta, name)
        if value:
            found[name] = _source(sources, name, value, clean, "the content's first image")
    if meta.language:
        if language_code(page.lang) == meta.language:
            found["language"] = "<html lang>"
        else:
            found["language"] = _source(sources, "language", meta.language, language_code, "detected from the text")
    return found


def _source(
    sources: tuple[JsonObject, ...], key: str, value: str, clean: Callable[[Any], str | None], otherwise: str
) -> str:
    """The name of the first source with a value of `key` that cleans to `value`, else `otherwise`."""
    for name, found in zip(SOURCE_NAMES, sources, strict=True):
        if any(clean(v) == value for v in found.get(key, ()) if v):
            return name
    return otherwise


def _authors_source(sources: tuple[JsonObject, ...], authors: list[str]) -> str:
    for name, found in zip(SOURCE_NAMES, sources, strict=True):
        names = clean_authors(list(found.get("authors", ()))) or clean_authors(list(found.get("organisations", ())))
        if names and set(names) & set(authors):
            return name
    return "a byline elsewhere on the page"
