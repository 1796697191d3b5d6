"""Extraction calls that MainContentPipeline runs inline, in threads or in worker processes,
and the whole per-page job (overview detection and extraction) of BOILERPLATE_EXECUTOR = "process".

This module imports no Scrapy: worker processes import it to unpickle the
function they run, and should start fast.
"""

from __future__ import annotations

import functools
import multiprocessing
import threading
import time
from collections import deque
from concurrent.futures import BrokenExecutor, Future, ProcessPoolExecutor

from .core.extractor import Extraction, Extractor
from .core.overview import OverviewDetector, OverviewVerdict
from .core.page import build_page


def extract_timed(extractor: Extractor, html, url: str | None) -> tuple[Extraction, float]:
    """`extractor.extract(html)` and the seconds it took."""
    start = time.perf_counter()
    result = extractor.extract(html, url=url)
    return result, time.perf_counter() - start


def extract_page_timed(extractor: Extractor, page, url: str | None) -> tuple[Extraction, float]:
    """`extractor.extract_page(page)`, from a walk already made, and the seconds it took."""
    start = time.perf_counter()
    result = extractor.extract_page(page, url=url)
    return result, time.perf_counter() - start


def extract_text_timed(extractor: Extractor, text: str, url: str | None,
                       base_url: str | None) -> tuple[Extraction, float]:
    """Parse `text` exactly as Scrapy's ``response.selector`` does, then extract.

    Same parse, same result: the output does not depend on the executor.
    """
    from parsel import Selector

    start = time.perf_counter()
    selector = Selector(text=text, type="html", base_url=base_url)
    result = extractor.extract(selector, url=url)
    return result, time.perf_counter() - start


# The worker process's extractor and overview detector, built once by init_worker.
_extractor: Extractor | None = None
_detector: OverviewDetector | None = None


def init_worker(model, options: dict | None, detector: dict | None = None) -> None:
    """Build the worker's Extractor(model, **options) and OverviewDetector(**detector);
    None for either: this crawl has no use for it (its component is not enabled)."""
    global _extractor, _detector
    _extractor = Extractor(model, **options) if options is not None else None
    _detector = OverviewDetector(**detector) if detector is not None else None


def in_worker(func, *args) -> tuple[Extraction, float]:
    """Run `func(extractor, *args)` with the worker's extractor."""
    result, seconds = func(_extractor, *args)
    result.blocks = []   # per-block debugging detail: not worth pickling back
    return result, seconds


def judge_page(text: str, url: str, base_url: str, html: bool,
               extract: str) -> tuple[OverviewVerdict, Extraction | None, float, float]:
    """OverviewMiddleware's and MainContentPipeline's work on one page, in one worker task.

    `text` is parsed once, exactly as Scrapy's ``response.selector`` parses it,
    and walked once, as ``pages.response_page`` walks it; overview detection and
    extraction both use that walk, so the results are those of "inline".
    `html` False: a response that is not HTML but judged on request (meta), read
    as the middleware reads it inline. `extract`: "no"; "yes"; or "articles",
    not for an overview page, whose items are dropped anyway.

    Returns (verdict, Extraction or None, detection seconds, extraction seconds),
    timed like "inline" times them: the parse is not counted.
    """
    from parsel import Selector

    if not html:
        start = time.perf_counter()
        verdict = _detector.detect(text, url=url)
        return verdict, None, time.perf_counter() - start, 0.0
    selector = Selector(text=text, type="html", base_url=base_url)
    start = time.perf_counter()
    page = build_page(selector.root, base_url=url)
    verdict = _detector.detect_page(page, url=url)
    detected = time.perf_counter()
    if extract == "no" or _extractor is None or (extract == "articles" and verdict.is_overview):
        return verdict, None, detected - start, 0.0
    if _extractor.options["include_comments"]:
        # The shared walk skips comments: extraction that keeps them walks again.
        result = _extractor.extract(selector, url=url)
    else:
        result = _extractor.extract_page(page, url=url)
    result.blocks = []   # per-block debugging detail: not worth pickling back
    return verdict, result, detected - start, time.perf_counter() - detected


class WorkerPool:
    """Worker processes for extraction, holding back work beyond one task per worker.

    concurrent.futures.ProcessPoolExecutor fails every queued task when one
    worker dies. Here tasks wait in this object until a worker is free, so a
    crash (a C extension fault, the out-of-memory killer) costs at most the
    tasks running at that moment; a new pool then takes the queue. Thread-safe:
    completions arrive in the pool's management thread.
    """

    def __init__(self, workers: int, initializer=None, initargs: tuple = ()):
        self.workers = workers
        self._initializer, self._initargs = initializer, initargs
        self._lock = threading.RLock()
        self._queue: deque = deque()
        self._running = 0
        self._solo_running = False
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False
        self.breaks = 0              # pools lost to a dead worker
        self.breaks_in_a_row = 0     # ... since a task last succeeded

    def submit(self, func, *args, solo: bool = False) -> Future:
        """Run `func(*args)` in a worker. A `solo` task goes first and runs alone: a
        retry after a crash, which must not take other tasks down if it crashes again."""
        outer: Future = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the worker pool is shut down")
            if solo:
                self._queue.appendleft((outer, func, args, True))
            else:
                self._queue.append((outer, func, args, False))
            self._fill()
        return outer

    def _fill(self) -> None:
        while self._queue and self._running < self.workers and not self._solo_running:
            if self._queue[0][3] and self._running:
                return   # a solo task waits for the running ones to finish
            outer, func, args, solo = self._queue.popleft()
            if not outer.set_running_or_notify_cancel():
                continue
            if self._pool is None:
                # "spawn": forking a process that runs a reactor and threads is unsafe.
                self._pool = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=self._initializer, initargs=self._initargs)
            pool = self._pool
            try:
                inner = pool.submit(func, *args)
            except Exception as exc:   # noqa: BLE001 - a broken pool refuses new work
                self._pool_broke(pool)
                outer.set_exception(exc)
                continue
            self._running += 1
            self._solo_running = solo
            inner.add_done_callback(functools.partial(self._done, outer, pool))

    def _done(self, outer: Future, pool: ProcessPoolExecutor, inner: Future) -> None:
        error = inner.exception()
        with self._lock:
            self._running -= 1
            self._solo_running = False
            if isinstance(error, BrokenExecutor):
                self._pool_broke(pool)
            else:
                self.breaks_in_a_row = 0
            if not self._closed:
                self._fill()
        if error is not None:
            outer.set_exception(error)
        else:
            outer.set_result(inner.result())

    def _pool_broke(self, pool: ProcessPoolExecutor) -> None:
        if pool is not self._pool:
            return   # already replaced
        self.breaks += 1
        self.breaks_in_a_row += 1
        pool.shutdown(wait=False, cancel_futures=True)
        self._pool = None

    def shutdown(self) -> None:
        with self._lock:
            self._closed = True
            pending, self._queue = list(self._queue), deque()
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None
        for outer, *_ in pending:
            outer.cancel()
