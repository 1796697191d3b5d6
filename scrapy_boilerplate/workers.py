"""The worker processes of BOILERPLATE_EXECUTOR = "process", one pool per crawl.

OverviewMiddleware and MainContentPipeline share it. For each HTML response the
middleware sends the whole per-page job to a worker (``executors.judge_page``:
one parse, one walk, overview detection, extraction) and waits for it without
blocking the reactor; the extraction comes back with the verdict and waits here,
keyed by the response, for the pipeline. Entries go with their response (weak
keys); nothing is stored on the response itself.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import weakref
from concurrent.futures import BrokenExecutor, Future
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.utils.asyncio import is_asyncio_available
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.response import get_base_url
from twisted.internet.defer import Deferred

from . import settings as bp
from .executors import WorkerPool, init_worker, judge_page
from .weakcache import WeakCache

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import TextResponse
    from scrapy.settings import BaseSettings

    from .core.extractor import Extraction
    from .core.overview import OverviewVerdict

logger = logging.getLogger(__name__)

# Worker pools that may die one after the other, with no task done in between,
# before "process" gives up (workers that cannot start: a bad model file...).
MAX_BREAKS_IN_A_ROW = 5


async def wait(future: Future) -> Any:
    """Await a concurrent.futures.Future under any reactor (or none)."""
    if future.done():
        return future.result()
    if is_asyncio_available():
        return await asyncio.wrap_future(future)
    from twisted.internet import reactor

    d: Deferred = Deferred()

    def done(f: Future) -> None:
        error = f.exception()
        reactor.callFromThread(d.errback if error else d.callback, error or f.result())

    future.add_done_callback(done)
    return await maybe_deferred_to_future(d)


def worker_count(settings: BaseSettings) -> int:
    """BOILERPLATE_EXECUTOR_WORKERS, or by default the number of CPUs, at most 4."""
    workers = settings.get(bp.EXECUTOR_WORKERS, bp.DEFAULTS[bp.EXECUTOR_WORKERS])
    return int(workers) if workers else max(1, min(4, os.cpu_count() or 1))


def failed_future(exc: BaseException) -> Future:
    future: Future = Future()
    future.set_exception(exc)
    return future


class CrawlWorkers:
    """The crawl's WorkerPool, started at the first task with what the components
    registered (the extractor's model and options, the detector's settings), and
    shut down when the spider closes."""

    def __init__(self, crawler: Crawler):
        if getattr(multiprocessing.current_process(), "_inheriting", False):
            # "spawn" starts workers by importing the __main__ module again: a script
            # that starts its crawl unguarded would crawl again in every worker.
            raise RuntimeError(f'{bp.EXECUTOR}="process": a worker process is running the crawl '
                               'script again; start the crawl under if __name__ == "__main__":')
        # Weakly: this object lives in _workers, keyed by the crawler.
        self._crawler = weakref.ref(crawler)
        self.workers = worker_count(crawler.settings)
        # Set by MainContentPipeline: (model, options), and whether the middleware's
        # tasks should extract too (not when items bring their own HTML).
        self.extractor: tuple | None = None
        self.extract_responses = False
        # Set by OverviewMiddleware: OverviewDetector keyword arguments.
        self.detector: dict | None = None
        self.pool: WorkerPool | None = None
        self.given_up = False
        self._breaks_logged = 0
        # response -> (Extraction, seconds) made by the middleware's task.
        self._extractions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        crawler.signals.connect(self.close, signal=signals.spider_closed)

    def submit(self, func, *args, solo: bool = False) -> Future:
        """`func(*args)` in a worker (WorkerPool.submit); never raises."""
        try:
            if self.given_up:
                raise RuntimeError("worker processes keep dying")
            if self.pool is None:
                model, options = self.extractor or (None, None)
                self.pool = WorkerPool(self.workers, init_worker, (model, options, self.detector))
            return self.pool.submit(func, *args, solo=solo)
        except Exception as exc:   # noqa: BLE001 - reported by whoever waits
            return failed_future(exc)

    async def judge(self, response: TextResponse, html: bool,
                    extract: str) -> tuple[OverviewVerdict, float]:
        """The overview verdict of `response` and the seconds detection took, from
        ``executors.judge_page``; its extraction, if any, is kept for the pipeline."""
        args = (response.text, response.url, get_base_url(response), html, extract)
        for attempt in (1, 2):
            try:
                verdict, extraction, detect_seconds, extract_seconds = await wait(
                    self.submit(judge_page, *args, solo=attempt == 2))
                break
            except BrokenExecutor:
                # A worker died and took the tasks running beside it along: once
                # more, alone in a new pool (the page that killed it fails again).
                self.check_pool()
                if attempt == 2:
                    raise
        if extraction is not None:
            self._extractions[response] = (extraction, extract_seconds)
        return verdict, detect_seconds

    def take_extraction(self, response: TextResponse) -> tuple[Extraction, float] | None:
        """The extraction the middleware's task made of `response`, if any, forgotten here."""
        return self._extractions.pop(response, None)

    def check_pool(self) -> None:
        """After a worker died: log it, and give up on workers that keep dying."""
        pool = self.pool
        if pool is None or pool.breaks == self._breaks_logged:
            return
        self._breaks_logged = pool.breaks
        if pool.breaks_in_a_row < MAX_BREAKS_IN_A_ROW:
            logger.warning("A scrapy_boilerplate worker process died; new workers take over",
                           extra={"spider": self._spider()})
            return
        # Never fall back to the reactor thread: what kills a worker would kill the crawl.
        pool.shutdown()
        self.pool, self.given_up = None, True
        logger.error("scrapy_boilerplate worker processes died %(n)d times in a row; no more "
                     "overview detection or extraction in this crawl (responses pass on "
                     "unjudged, items go on with empty fields)",
                     {"n": pool.breaks_in_a_row}, extra={"spider": self._spider()})

    def _spider(self):
        crawler = self._crawler()
        return crawler.spider if crawler is not None else None

    def close(self, **kwargs) -> None:
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None
        self._extractions.clear()


#: crawl_workers(crawler): the crawler's CrawlWorkers, shared by OverviewMiddleware and
#: MainContentPipeline.
crawl_workers = WeakCache(CrawlWorkers)
