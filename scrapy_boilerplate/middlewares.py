"""Scrapy middlewares of scrapy_boilerplate.

See docs/overview.md for the overview components: every setting, meta key
and stat, and why OverviewMiddleware sits where it does.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse, TextResponse
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from . import settings as bp
from .core.links.roles import reached_by
from .core.overview.detector import OverviewVerdict
from .crawl.charsets import better_encoding
from .crawl.config import crawl_settings
from .crawl.item_sources import item_sources
from .crawl.response_pages import record_verdict, response_page
from .crawl.stats import add_seconds
from .crawl.worker_pool import WorkerLost
from .crawl.workers import CrawlWorkers, crawl_workers

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    # typing.Self requires Python 3.11
    from typing_extensions import Self


logger = logging.getLogger(__name__)


class CharsetMiddleware:
    """Downloader middleware (BOILERPLATE_DETECT_CHARSET) that re-decodes an HTML response whose
    charset is declared nowhere and whose bytes are not valid UTF-8, in the encoding its bytes tell
    (crawl/charsets.py), where Scrapy guessed otherwise: the spider, the overview judge
    and the pipeline then all read the right text. It sits above OverviewMiddleware (575) and
    below HttpCompressionMiddleware (590), so that it reads the decompressed body.
    """

    @bp.stops_crawl
    def __init__(self, crawler: Crawler):
        settings = crawl_settings(crawler)
        if not (settings.enabled and settings.detect_charset):
            raise NotConfigured
        self.stats = crawler.stats
        self.max_body_size = settings.max_body_size

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_response(self, request: Request, response: Response, spider: Any = None) -> Response:
        if not isinstance(response, HtmlResponse) or (self.max_body_size and len(response.body) > self.max_body_size):
            return response
        try:
            encoding = better_encoding(response)
        except Exception:  # a bad page never stops the crawl: Scrapy's reading stands
            logger.warning("charset detection failed on %s", response.url, exc_info=True, extra={"spider": spider})
            self.stats.inc_value("boilerplate/charset/errors")
            return response
        if encoding is None:
            return response
        logger.debug(
            "%s declares no charset and is not valid UTF-8: read as %s, not %s",
            response.url,
            encoding,
            response.encoding,
            extra={"spider": spider},
        )
        self.stats.inc_value("boilerplate/charset/detected")
        self.stats.inc_value(f"boilerplate/charset/detected/{encoding}")
        return response.replace(encoding=encoding)


class OverviewMiddleware:
    """Downloader middleware that finds overview pages (home, section, tag,
    archive, search and listing pages) and adds "overview" to their
    ``response.flags``.

    With BOILERPLATE_OVERVIEW_ACTION = "drop" it ignores them instead
    (IgnoreRequest), except for start requests unless asked. It must sit
    below HttpCompressionMiddleware (590) and MetaRefreshMiddleware (580), so
    that it judges the decompressed body of the final page (570 by default).

    With BOILERPLATE_EXECUTOR = "process" the page is judged in a worker process,
    which also extracts its main content for MainContentPipeline (crawl/workers.py).
    """

    @bp.stops_crawl
    def __init__(self, crawler: Crawler):
        settings = crawl_settings(crawler)
        self.action: str = settings.overview_action if settings.enabled else "off"
        if self.action == "off":
            raise NotConfigured
        self.crawler = crawler
        self.stats = crawler.stats
        # Built here also in "process": a bad model file stops the crawl before it starts.
        self.detector = settings.detector()
        self.max_body_size: int = settings.max_body_size
        self.drop_start: bool = settings.overview_drop_start
        # MainContentPipeline writes the verdict into the page's items (crawl/response_pages.py holds it meanwhile).
        self.record_verdicts = settings.overview_field is not None
        self.workers: CrawlWorkers | None = None
        if settings.executor == "process":
            self.workers = crawl_workers(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Response | Awaitable[Response]:
        # None: the default; True: force (judge any text response, drop even a start
        # request); False: skip.
        forced = request.meta.get(bp.META_OVERVIEW)
        if forced is False:
            self._skip("meta", response, "skipped by request meta")
            return response
        if not 200 <= response.status < 300:
            # Errors and unfollowed redirects are HttpErrorMiddleware's business.
            return response
        if not isinstance(response, HtmlResponse) and not (forced and isinstance(response, TextResponse)):
            self._skip("non_html", response, f"not HTML ({type(response).__name__})")
            return response
        if not response.body:
            self._skip("empty", response, "empty body")
            return response
        if self.max_body_size and len(response.body) > self.max_body_size:
            self._skip(
                "too_large",
                response,
                f"body of {len(response.body)} bytes is over {bp.MAX_BODY_SIZE}={self.max_body_size}",
                level=logging.WARNING,
            )
            return response
        if self.workers is not None:
            # A coroutine, which Scrapy awaits: the reactor goes on meanwhile.
            return self._judge_in_worker(request, response, forced)

        try:
            if isinstance(response, HtmlResponse):
                # response.selector is cached on the response: the spider reuses this
                # parse, and the walk of it is kept for MainContentPipeline (crawl/response_pages.py).
                response.selector  # noqa: B018 - parsed now (a cached property)
                start = time.perf_counter()
                verdict = self.detector.detect_page(response_page(response), url=response.url)
            else:
                # A forced non-HTML response is parsed from its text as HTML.
                start = time.perf_counter()
                verdict = self.detector.detect(response.text, url=response.url)
            seconds = time.perf_counter() - start
        except Exception:  # noqa: BLE001 - logged with its traceback by _failed
            # A bug or an unexpected page must not cost the page or stop the crawl.
            self._failed(response)
            return response
        return self._act(request, response, verdict, seconds, forced)

    async def _judge_in_worker(self, request: Request, response: TextResponse, forced: bool | None) -> Response:
        workers = self.workers
        assert workers is not None  # process_response comes here only with workers
        html = isinstance(response, HtmlResponse)
        if not (html and workers.extract_responses) or request.meta.get(bp.META_EXTRACT) is False:
            extract = "no"
        elif self.action in ("follow", "drop"):
            extract = "articles"  # an overview page's items are dropped: no extraction for them
        else:
            extract = "yes"
        try:
            verdict, seconds = await workers.judge(response, html, extract)
        except WorkerLost:
            # The page's worker died or hung (logged and counted in crawl/workers.py).
            self._failed(response, with_traceback=False)
            return response
        except Exception:  # noqa: BLE001 - logged with its traceback by _failed
            self._failed(response)
            return response
        return self._act(request, response, verdict, seconds, forced)

    def _act(
        self, request: Request, response: Response, verdict: OverviewVerdict, seconds: float, forced: bool | None
    ) -> Response:
        # The role of the link the page was reached by (BOILERPLATE_LINKS, ArticleSpider) is evidence.
        verdict = reached_by(verdict, request.meta.get(bp.META_LINK_ROLE))
        self.stats.inc_value("boilerplate/overview/checked")
        if self.record_verdicts:
            record_verdict(response, verdict)
        # Detection alone (in "process", as timed in the worker); the parse is counted
        # where the spider would have parsed anyway.
        add_seconds(self.stats, "boilerplate/overview/seconds_total", "boilerplate/overview/seconds_max", seconds)
        if not verdict.is_overview:
            return response

        self.stats.inc_value("boilerplate/overview/pages")
        # Appended in place: response.replace() would build a new response
        # without the cached selector, and the spider would parse again.
        response.flags.append(bp.OVERVIEW_FLAG)
        if self.action == "drop" and (forced or self.drop_start or not request.meta.get("is_start_request")):
            self.stats.inc_value("boilerplate/overview/dropped")
            # Scrapy logs nothing for an IgnoreRequest without errback.
            logger.debug(
                "Dropped overview page %(response)s (score %(score).2f): %(reason)s",
                {"response": response, "score": verdict.score, "reason": verdict.reason},
                extra={"spider": self.crawler.spider},
            )
            raise IgnoreRequest(f"Overview page {response.url}: {verdict.reason}")
        logger.debug(
            "Overview page %(response)s (score %(score).2f): %(reason)s",
            {"response": response, "score": verdict.score, "reason": verdict.reason},
            extra={"spider": self.crawler.spider},
        )
        return response

    def _failed(self, response: Response, with_traceback: bool = True) -> None:
        self.stats.inc_value("boilerplate/overview/errors")
        logger.warning(
            "Overview detection failed on %(response)s; passed on unchanged",
            {"response": response},
            exc_info=with_traceback,
            extra={"spider": self.crawler.spider},
        )

    def _skip(self, why: str, response: Response, message: str, level: int = logging.DEBUG) -> None:
        self.stats.inc_value(f"boilerplate/overview/skipped/{why}")
        logger.log(
            level,
            "Not checked for overview, %(message)s: %(response)s",
            {"message": message, "response": response},
            extra={"spider": self.crawler.spider},
        )


class OverviewLinksOnlyMiddleware(BaseSpiderMiddleware):
    """Spider middleware that drops the items a callback yields from a
    response flagged "overview" and keeps its requests, so spiders (and
    CrawlSpider rules) keep following the links of overview pages.

    Active with BOILERPLATE_OVERVIEW_ACTION "follow" and "drop" (where the
    start pages that are not dropped still lead to the rest of the site).
    """

    @bp.stops_crawl
    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        # "flag" leaves the items to the spider; "off" flags nothing.
        settings = crawl_settings(crawler)
        if not settings.enabled or settings.overview_action not in ("follow", "drop"):
            raise NotConfigured
        self.stats = crawler.stats

    def get_processed_item(self, item: Any, response: Response | None) -> Any:
        # response: None for items from start(), a Failure for errback output.
        if bp.OVERVIEW_FLAG in getattr(response, "flags", ()):
            self.stats.inc_value("boilerplate/overview/items_dropped")
            logger.debug(
                "Dropped an item from overview page %(response)s",
                {"response": response},
                extra={"spider": self.crawler.spider},
            )
            return None
        return item


class ItemResponseMiddleware(BaseSpiderMiddleware):
    """Spider middleware that remembers which response each item was yielded
    from, for MainContentPipeline (item pipelines are not told).

    It must be the spider middleware closest to the engine (10 by default), so
    that it only sees items that do reach the item pipelines: every item it
    records ends with an item_scraped, item_dropped or item_error signal, and
    the entry goes then at the latest (see crawl/item_sources.py).
    """

    @bp.stops_crawl
    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        if not crawl_settings(crawler).enabled:
            raise NotConfigured
        self.sources = item_sources(crawler)

    def get_processed_item(self, item: Any, response: Response | None) -> Any:
        # Items from start() have no response (None), those of an errback a Failure.
        if response is not None and hasattr(response, "flags"):
            self.sources.record(item, response)
        return item
