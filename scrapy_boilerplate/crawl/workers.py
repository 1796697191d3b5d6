"""The worker processes of BOILERPLATE_EXECUTOR = "process", one pool per crawl.

OverviewMiddleware and MainContentPipeline share it. For each HTML response the
middleware sends the whole per-page job to a worker (``tasks.judge_page``:
one parse, one walk, overview detection, extraction) and waits for it without
blocking the reactor; the extraction comes back with the verdict and waits here,
keyed by the response, for the pipeline. Entries go with their response (weak
keys); nothing is stored on the response itself.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import weakref
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy import signals
from scrapy.utils.asyncio import is_asyncio_available
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.response import get_base_url
from twisted.internet.defer import Deferred
from twisted.internet.defer import TimeoutError as DeferredTimeoutError

from .. import settings as bp
from .config import WorkerConfig, uses_component, worker_config
from .site_memory import site_memory
from .tasks import init_worker, judge_page
from .weakcache import WeakCache
from .worker_pool import PoolBroken, TaskTimeout, WorkerDied, WorkerLost, WorkerPool

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import TextResponse

    from ..core.extraction import Extraction
    from ..core.overview.detector import OverviewVerdict
    from ..core.site_memory.templates import TemplateStore
    from .site_memory import CrawlSiteMemory

logger = logging.getLogger(__name__)

T = TypeVar("T")  # what a task returns

# Workers that may die one after the other, with no task done in between,
# before "process" gives up (workers that cannot start: a bad model file...).
MAX_DEATHS_IN_A_ROW = 5
# Pools whose supervisor may fail before the crawl runs its tasks inline instead.
MAX_BROKEN_POOLS = 2


async def wait(future: Future[T], timeout: float | None = None) -> T:
    """Await a concurrent.futures.Future under any reactor (or none); TaskTimeout after
    `timeout` seconds (the task itself goes on: only a worker process can be stopped)."""
    if future.done():
        return future.result()
    if is_asyncio_available():
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), timeout)
        except asyncio.TimeoutError:
            raise TaskTimeout(f"no result within {timeout:g} s") from None
    from twisted.internet import reactor

    d: Deferred[T] = Deferred()

    def done(f: Future[T]) -> None:
        if not f.cancelled():
            error = f.exception()
            reactor.callFromThread(d.errback if error else d.callback, error or f.result())

    future.add_done_callback(done)
    if timeout is not None:
        d.addTimeout(timeout, reactor)
    try:
        return await maybe_deferred_to_future(d)
    except DeferredTimeoutError:
        raise TaskTimeout(f"no result within {timeout:g} s") from None


def failed_future(exc: BaseException) -> Future[T]:
    future: Future[T] = Future()
    future.set_exception(exc)
    return future


def count_lost(crawler: Crawler, error: WorkerLost, url: str | None) -> None:
    """Log and count a page whose worker (process or thread) was lost; once per error,
    however many of the page's items wait for it."""
    if error.counted:
        return
    error.counted = True
    spider = crawler.spider
    if isinstance(error, TaskTimeout):
        crawler.stats.inc_value("boilerplate/workers/timeouts")
        logger.warning(
            "%(url)s was given up after %(setting)s: %(error)s",
            {"url": url, "setting": bp.EXECUTOR_TIMEOUT, "error": error},
            extra={"spider": spider},
        )
    elif isinstance(error, WorkerDied):
        crawler.stats.inc_value("boilerplate/workers/died")
        logger.warning(
            "A scrapy_boilerplate worker process died on %(url)s (%(error)s); a new worker takes its place",
            {"url": url, "error": error},
            extra={"spider": spider},
        )


class CrawlWorkers:
    """The crawl's WorkerPool, started at the first task with the crawl's WorkerConfig
    (crawl/config.py), and shut down when the spider closes. What the workers do is the
    settings' (not which component asked first): they extract, with the crawl's site memory, and
    they judge pages when the overview action is not "off"."""

    def __init__(self, crawler: Crawler):
        if getattr(multiprocessing.current_process(), "_inheriting", False):
            # "spawn" starts workers by importing the __main__ module again: a script
            # that starts its crawl unguarded would crawl again in every worker.
            raise RuntimeError(
                f'{bp.EXECUTOR}="process": a worker process is running the crawl '
                'script again; start the crawl under if __name__ == "__main__":'
            )
        # Weakly: this object lives in _workers, keyed by the crawler.
        self._crawler = weakref.ref(crawler)
        self.config = worker_config(crawler)
        self.site_memory: CrawlSiteMemory = site_memory(crawler)
        # Whether the middleware's tasks extract too: only for the pipeline, which takes them.
        self.extract_responses = self.config.extract_responses and uses_component(
            crawler, "ITEM_PIPELINES", "scrapy_boilerplate.pipelines.MainContentPipeline"
        )
        self.pool: WorkerPool | None = None
        self.given_up = False
        self.broken_pools = 0  # pools whose supervisor failed
        self.inline = False  # after MAX_BROKEN_POOLS of them: tasks run in this process
        self._inline_ready = False
        # response -> (Extraction, seconds) made by the middleware's task.
        self._extractions: weakref.WeakKeyDictionary[TextResponse, tuple[Extraction, float]] = (
            weakref.WeakKeyDictionary()
        )
        # response -> the WorkerLost of the middleware's task: not sent to a worker again.
        self._lost: weakref.WeakKeyDictionary[TextResponse, WorkerLost] = weakref.WeakKeyDictionary()
        crawler.signals.connect(self.close, signal=signals.spider_closed)

    def submit(self, func: Callable[..., Any], *args: Any) -> Future[Any]:
        """`func(*args)` in a worker (WorkerPool.submit); never raises."""
        try:
            if self.given_up:
                raise RuntimeError("worker processes keep dying")
            if self.inline:
                return self._run_inline(func, *args)
            if self.pool is None:
                # The crawl's template store, as the workers reach it (site_memory.py).
                shared = self.site_memory.for_workers() if self.site_memory else None
                self.pool = WorkerPool(
                    self.config.workers, init_worker, self._worker_args(shared), task_timeout=self.config.timeout
                )
            return self.pool.submit(func, *args)
        except Exception as exc:  # noqa: BLE001 - reported by whoever waits
            return failed_future(exc)

    def _worker_args(self, templates: TemplateStore | None) -> tuple[WorkerConfig, TemplateStore | None]:
        """init_worker's arguments: the crawl's WorkerConfig and its template store."""
        return (self.config, templates)

    def _run_inline(self, func: Callable[..., Any], *args: Any) -> Future[Any]:
        """`func(*args)` here, in the reactor thread, as a worker would run it (after
        MAX_BROKEN_POOLS pools failed): slower, but the crawl keeps its extractions."""
        if not self._inline_ready:
            init_worker(*self._worker_args(self.site_memory.store if self.site_memory else None))
            self._inline_ready = True
        future: Future[Any] = Future()
        try:
            future.set_result(func(*args))
        except Exception as exc:  # noqa: BLE001 - reported by whoever waits, as from a worker
            future.set_exception(exc)
        return future

    async def run(self, url: str | None, func: Callable[..., Any], *args: Any) -> Any:
        """The result of `func(*args)` in a worker; a lost worker is logged and counted."""
        try:
            return await wait(self.submit(func, *args))
        except WorkerLost as exc:
            self.lost(exc, url)
            raise

    async def judge(self, response: TextResponse, html: bool, extract: str) -> tuple[OverviewVerdict, float]:
        """The overview verdict of `response` and the seconds detection took, from
        ``tasks.judge_page``; its extraction, if any, is kept for the pipeline."""
        args = (response.text, response.url, get_base_url(response), html, extract)
        try:
            verdict, extraction, detect_seconds, extract_seconds = await self.run(response.url, judge_page, *args)
        except WorkerLost as exc:
            # The page killed or hung its worker: it is not sent to another one. A copy
            # without the traceback, whose frames would keep the response (the weak key) alive.
            lost = self._lost[response] = type(exc)(*exc.args)
            lost.counted = True
            raise
        if extraction is not None:
            if self.site_memory:
                self.site_memory.account(extraction, response.url)
            self._extractions[response] = (extraction, extract_seconds)
        return verdict, detect_seconds

    def take_extraction(self, response: TextResponse) -> tuple[Extraction, float] | WorkerLost | None:
        """The extraction the middleware's task made of `response` (or how that task's
        worker was lost), if any, forgotten here."""
        lost = self._lost.pop(response, None)
        return lost if lost is not None else self._extractions.pop(response, None)

    def lost(self, error: WorkerLost, url: str | None) -> None:
        """Log and count a task whose worker died or hung; give up on workers that keep
        dying before they finish a task."""
        crawler = self._crawler()
        if crawler is not None:
            count_lost(crawler, error, url)
        pool = self.pool
        if isinstance(error, PoolBroken):
            self._replace_broken(pool, error)
            return
        if pool is None or pool.deaths_in_a_row < MAX_DEATHS_IN_A_ROW:
            return
        # Never fall back to the reactor thread: what kills a worker would kill the crawl.
        pool.shutdown(wait=False)
        self.pool, self.given_up = None, True
        logger.error(
            "scrapy_boilerplate worker processes died %(n)d times in a row; no more "
            "overview detection or extraction in this crawl (responses pass on "
            "unjudged, items go on with empty fields)",
            {"n": pool.deaths_in_a_row},
            extra={"spider": self._spider()},
        )

    def _replace_broken(self, pool: WorkerPool | None, error: PoolBroken) -> None:
        """A pool whose supervisor failed: the next task starts a new pool; after
        MAX_BROKEN_POOLS, tasks run in this process. One ERROR each time."""
        if pool is None or not pool.broken:
            return  # replaced already (the other tasks of the broken pool report late)
        pool.shutdown(wait=False)
        self.pool = None
        self.broken_pools += 1
        crawler = self._crawler()
        if crawler is not None:
            crawler.stats.inc_value("boilerplate/workers/pools_broken")
        cause = error.__cause__
        if self.broken_pools >= MAX_BROKEN_POOLS:
            self.inline = True
            then = "pages are judged and extracted in the crawl process from now on"
        else:
            then = "a new pool of worker processes takes its place"
        logger.error(
            "The scrapy_boilerplate worker pool failed (%(error)s); its pending pages "
            "go on unjudged, with empty fields; %(then)s",
            {"error": error, "then": then},
            extra={"spider": self._spider()},
            exc_info=(type(cause), cause, cause.__traceback__) if cause else None,
        )

    def _spider(self) -> Spider | None:
        crawler = self._crawler()
        return crawler.spider if crawler is not None else None

    def close(self, **kwargs: Any) -> None:
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None
        self._extractions.clear()
        self._lost.clear()


#: crawl_workers(crawler): the crawler's CrawlWorkers, shared by OverviewMiddleware and
#: MainContentPipeline.
crawl_workers = WeakCache(CrawlWorkers)
