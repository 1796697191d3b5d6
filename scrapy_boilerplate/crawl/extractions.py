"""The crawl's extractions: one per response, however many components and items ask for it.

MainContentPipeline asks for the extraction of each item's page, ArticleSpider for that of each
page it may yield (to tell whether the site presents it as a post). Both await the same one: the
first ask starts it (inline, in a thread, or in a worker process: BOILERPLATE_EXECUTOR; in
"process" it is usually made already, in OverviewMiddleware's task for the page), every later ask
of that response waits for it. It is accounted once, when first awaited: the stats
``boilerplate/pages_extracted``, ``extract_seconds_*``, ``empty_extractions``, site memory and site
rules; a failure is logged and counted once, and every asker gets None.
"""

from __future__ import annotations

import logging
import time
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.utils.response import get_base_url

from .. import settings as bp
from ..core.extractor import Extraction, Extractor
from .config import crawl_settings
from .response_pages import cached_page, response_page
from .site_memory import site_memory
from .site_rules import SiteRuleStats
from .stats import add_seconds
from .tasks import extract_page_timed, extract_text_timed, extract_timed, in_worker
from .weakcache import WeakCache
from .worker_pool import WorkerLost
from .workers import CrawlWorkers, count_lost, crawl_workers, failed_future, wait

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.crawler import Crawler
    from scrapy.http import HtmlResponse

logger = logging.getLogger(__name__)

#: An extraction's result in the executor: the Extraction and the seconds it took.
Timed = tuple[Extraction, float]


class _Pending:
    """One extraction under way or done, and whether it was accounted yet."""

    __slots__ = ("accounted", "future", "url")

    def __init__(self, future: Future[Timed], url: str | None) -> None:
        self.future = future
        self.url = url
        self.accounted = False


class PageExtractions:
    """The crawler's extractions (module docstring), made with the crawl's settings."""

    @bp.stops_crawl
    def __init__(self, crawler: Crawler) -> None:
        settings = crawl_settings(crawler)
        # Weakly: this object lives in page_extractions, keyed by the crawler.
        self._crawler = weakref.ref(crawler)
        self.max_body_size = settings.max_body_size
        self.executor = settings.executor
        self.thread_count = settings.executor_workers
        # "thread" waits this long for a page (a stuck thread cannot be stopped, its item goes
        # on); "process" kills the page's worker after as long (crawl/worker_pool.py).
        self.timeout = settings.executor_timeout if self.executor == "thread" else None
        # The walk crawl/response_pages.py shares skips comments: usable unless comments are wanted.
        self.walk_shared = not settings.include_comments
        self.site_memory = site_memory(crawler)  # BOILERPLATE_TEMPLATE_STORE (falsy when off)
        self.site_rules = SiteRuleStats(crawler)
        # Loaded now: a bad path or favor value stops the crawl before it starts.
        self.extractor = settings.extractor(self.site_memory.store)
        self.pool: ThreadPoolExecutor | None = None  # "thread"
        self.workers: CrawlWorkers | None = None  # "process"
        if self.executor == "process":
            self.workers = crawl_workers(crawler)
        # response -> its extraction, or None when it is not extracted (too large).
        self._by_response: weakref.WeakKeyDictionary[HtmlResponse, _Pending | None] = weakref.WeakKeyDictionary()
        crawler.signals.connect(self.close, signal=signals.spider_closed)

    def close(self, **kwargs: Any) -> None:
        # The worker processes of "process" stop at spider_closed (crawl/workers.py).
        if self.pool is not None:
            # Every item is done by now; do not make the reactor wait for thread exits.
            self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = None

    async def of_response(self, response: HtmlResponse) -> Extraction | None:
        """The extraction of `response`, started by the first ask; None when it failed or the
        page is over BOILERPLATE_MAX_BODY_SIZE (logged and counted once)."""
        if response not in self._by_response:
            self._by_response[response] = self._start(response)
        return await self._result(self._by_response[response])

    async def of_html(self, html: str | bytes, url: str | None) -> Extraction | None:
        """The extraction of an item's own HTML (BOILERPLATE_HTML_FIELD): one per item."""
        if self._too_large(len(html), url):
            return None
        return await self._result(_Pending(self._run(extract_timed, html, url), url))

    # -- starting --

    def _start(self, response: HtmlResponse) -> _Pending | None:
        if self._too_large(len(response.body), response.url):
            return None
        url = response.url
        if self.workers is not None:
            # Extracted already, in OverviewMiddleware's task for this response; or that
            # task's worker died or hung on it, and no other worker is risked on it.
            done = self.workers.take_extraction(response)
            if done is not None:
                future: Future[Timed] = Future()
                if isinstance(done, WorkerLost):
                    future.set_exception(done)
                else:
                    future.set_result(done)
                return _Pending(future, url)
        # Reuse what the spider or OverviewMiddleware already did: the walk of the
        # page (crawl/response_pages.py), else Scrapy's parse. The private attribute is read so that
        # "thread" and "process" do not parse in the reactor thread when nobody has.
        page = cached_page(response) if self.walk_shared else None
        selector = getattr(response, "_cached_selector", None)
        if self.executor == "inline" and self.walk_shared:
            future = self._run(_extract_response, response)
        elif self.executor != "process" and page is not None:
            future = self._run(extract_page_timed, page, url)
        elif self.executor == "inline" or (self.executor == "thread" and selector is not None):
            future = self._run(extract_timed, response.selector, url)
        else:
            future = self._run(extract_text_timed, response.text, url, get_base_url(response))
        return _Pending(future, url)

    def _too_large(self, size: int, url: str | None) -> bool:
        if self.max_body_size and size > self.max_body_size:
            self._inc("boilerplate/body_too_large")
            logger.warning(
                "Not extracted, %(size)d bytes is over %(setting)s=%(limit)d: %(url)s",
                {"size": size, "setting": bp.MAX_BODY_SIZE, "limit": self.max_body_size, "url": url or _HTML_FIELD},
                extra={"spider": self._spider()},
            )
            return True
        return False

    def _run(self, func: Callable[..., Timed], *args: Any) -> Future[Timed]:
        """`func(extractor, *args)` with the configured executor; never raises."""
        if self.workers is not None:
            return self.workers.submit(in_worker, func, *args)
        try:
            if self.executor == "inline":
                future: Future[Timed] = Future()
                future.set_result(func(self.extractor, *args))
                return future
            if self.pool is None:
                self.pool = ThreadPoolExecutor(self.thread_count, thread_name_prefix="boilerplate")
            return self.pool.submit(func, self.extractor, *args)
        except Exception as exc:  # noqa: BLE001 - reported by the first ask
            return failed_future(exc)

    # -- the result, accounted once --

    async def _result(self, pending: _Pending | None) -> Extraction | None:
        if pending is None:
            return None
        try:
            result: Timed = await wait(pending.future, self.timeout)
        except Exception as exc:  # noqa: BLE001 - the item must go on whatever failed
            if not pending.accounted:
                pending.accounted = True
                self._failed(exc, pending.url)
            # The future keeps the exception for the page's other asks: without this,
            # its traceback's frames would keep the response (a weak key) alive.
            exc.__traceback__ = None
            return None
        if not pending.accounted:
            pending.accounted = True
            self._account(*result, pending.url)
        return result[0]

    def _account(self, extraction: Extraction, seconds: float, url: str | None) -> None:
        self.site_memory.account(extraction, url)
        self.site_rules.account(extraction, url)
        crawler = self._crawler()
        if crawler is None or crawler.stats is None:
            return
        crawler.stats.inc_value("boilerplate/pages_extracted")
        add_seconds(crawler.stats, "boilerplate/extract_seconds_total", "boilerplate/extract_seconds_max", seconds)
        if not extraction.text:
            crawler.stats.inc_value("boilerplate/empty_extractions")
            logger.debug("No main content found on %(url)s", {"url": url}, extra={"spider": crawler.spider})

    def _failed(self, error: Exception, url: str | None) -> None:
        """Log and count a failed extraction."""
        if isinstance(error, WorkerLost):
            crawler = self._crawler()
            if self.workers is not None:
                self.workers.lost(error, url)
            elif crawler is not None:
                count_lost(crawler, error, url)  # a thread that did not come back in time
        self._inc("boilerplate/errors")
        logger.warning(
            "Main-content extraction failed for %(url)s: %(error)r; its items go on without its content",
            {"url": url or _HTML_FIELD, "error": error},
            exc_info=logger.isEnabledFor(logging.DEBUG) and not isinstance(error, WorkerLost),
            extra={"spider": self._spider()},
        )

    def _spider(self) -> Any:
        crawler = self._crawler()
        return crawler.spider if crawler is not None else None

    def _inc(self, stat: str) -> None:
        crawler = self._crawler()
        if crawler is not None and crawler.stats is not None:
            crawler.stats.inc_value(stat)


_HTML_FIELD = "an item's HTML field"


def _extract_response(extractor: Extractor, response: HtmlResponse) -> Timed:
    """Inline: extract from the response's shared walk, made here if nobody made it yet."""
    start = time.perf_counter()
    try:
        page = response_page(response)
    except Exception:  # noqa: BLE001 - extract() turns bad input into an empty result
        return extract_timed(extractor, response.selector, response.url)
    result = extractor.extract_page(page, url=response.url)
    return result, time.perf_counter() - start


#: page_extractions(crawler): the crawler's PageExtractions, shared by MainContentPipeline and
#: ArticleSpider.
page_extractions = WeakCache(PageExtractions)
