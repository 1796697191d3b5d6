"""What OverviewMiddleware and MainContentPipeline share about a response: its walk, its verdict.

Both need ``core.document.page.build_page`` of the same response: overview detection in
the downloader, extraction in the item pipeline. The walk is a good part of
either's cost, so the first to need it builds it from ``response.selector``
(Scrapy's own parse, also reused) and the other takes it from here. Entries go
with their response (weak keys); nothing is stored on the response itself.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from scrapy.http import TextResponse

from ..core.document.page import Page, build_page
from .weakcache import WeakCache

if TYPE_CHECKING:
    from scrapy.http import HtmlResponse, Response

    from ..core.overview.detector import OverviewVerdict


def _walk(response: TextResponse) -> Page:
    return build_page(response.selector.root, base_url=response.url)


_pages: WeakCache[TextResponse, Page] = WeakCache(_walk)


def response_page(response: HtmlResponse) -> Page:
    """The walked page of `response`, built once (comments skipped, as by default)."""
    return _pages(response)


def cached_page(response: Response) -> Page | None:
    """The page already walked for `response`, if any (only text responses are walked)."""
    return _pages.get(response) if isinstance(response, TextResponse) else None


# OverviewMiddleware's verdict on each response it judged, for BOILERPLATE_OVERVIEW_FIELD.
_verdicts: weakref.WeakKeyDictionary[Response, OverviewVerdict] = weakref.WeakKeyDictionary()


def record_verdict(response: Response, verdict: OverviewVerdict) -> None:
    _verdicts[response] = verdict


def response_verdict(response: Response | None) -> OverviewVerdict | None:
    """The overview verdict on `response`, or None when it was not judged."""
    return _verdicts.get(response) if response is not None else None
