"""The article body a page states in its JSON-LD, as a Page of its own.

Client-rendered pages (the text drawn by a script from data in the page) and
forum posts hydrated in the browser often hold no readable body in their markup,
but state it in ``<script type="application/ld+json">`` as ``articleBody``, as
the ``text`` of a post, or as the steps of a how-to or a recipe. When the extractor finds next to nothing, that stated
body is the page's main content. Never for a body marked
``isAccessibleForFree: false``: a paywall puts the whole article there for
search engines while readers see only its teaser.
"""

from __future__ import annotations

import html

from ..document.page import Page, build_page
from ..document.parse import parse_html

#: The fallback is tried when the extraction is shorter than this share of the stated body.
BODY_FALLBACK_SHARE = 0.2
#: Bodies shorter than this are summaries, not an article.
BODY_MIN_CHARS = 500
#: Longer bodies are cut here before parsing (the cost stays bounded).
BODY_MAX_CHARS = 500_000
_MARKUP = ("<p", "<br", "<div", "</")


def stated_body(page: Page) -> str | None:
    """The JSON-LD body of `page` when the fallback may use it, else None."""
    body: str = max(page.jsonld.get("articleBody", ""), page.jsonld.get("steps", ""), key=len)
    if not body or len(body) < BODY_MIN_CHARS or page.jsonld.get("paywalled"):
        return None
    return body[:BODY_MAX_CHARS]


def body_page(body: str, page: Page) -> Page | None:
    """`body` (HTML or plain text with line breaks) walked as a page; None when it holds no text."""
    if any(mark in body for mark in _MARKUP):
        markup = body
    else:
        paragraphs = (line.strip() for line in body.splitlines())
        markup = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs if p)
    root = parse_html(f"<html><body><article>{markup}</article></body></html>")
    if root is None:
        return None
    stated = build_page(root, base_url=page.base_url)
    stated.base_href = page.base_href
    return stated if len(stated) else None
