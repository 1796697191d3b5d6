"""One walk of a response's tree, shared by OverviewMiddleware and MainContentPipeline.

Both need ``core.page.build_page`` of the same response: overview detection in
the downloader, extraction in the item pipeline. The walk is a good part of
either's cost, so the first to need it builds it from ``response.selector``
(Scrapy's own parse, also reused) and the other takes it from here. Entries go
with their response (weak keys); nothing is stored on the response itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .core.page import Page, build_page
from .weakcache import WeakCache

if TYPE_CHECKING:
    from scrapy.http import HtmlResponse

_pages = WeakCache(lambda response: build_page(response.selector.root, base_url=response.url))


def response_page(response: HtmlResponse) -> Page:
    """The walked page of `response`, built once (comments skipped, as by default)."""
    return _pages(response)


def cached_page(response) -> Page | None:
    """The page already walked for `response`, if any."""
    return _pages.get(response)
