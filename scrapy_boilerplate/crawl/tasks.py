"""Extraction calls that MainContentPipeline runs inline, in threads or in worker processes,
and the whole per-page job (overview detection and extraction) of BOILERPLATE_EXECUTOR = "process"
(the processes themselves: worker_pool.py).

This module imports no Scrapy: worker processes import it to unpickle the
function they run, and should start fast.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..core.document.page import build_page
from ..core.extractor import Extraction, Extractor
from ..core.overview.detector import OverviewDetector, OverviewVerdict

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..core.document.page import Page
    from ..core.site_memory.templates import TemplateStore
    from .config import WorkerConfig


def extract_timed(extractor: Extractor, html: Any, url: str | None) -> tuple[Extraction, float]:
    """`extractor.extract(html)` and the seconds it took."""
    start = time.perf_counter()
    result = extractor.extract(html, url=url)
    return result, time.perf_counter() - start


def extract_page_timed(extractor: Extractor, page: Page, url: str | None) -> tuple[Extraction, float]:
    """`extractor.extract_page(page)`, from a walk already made, and the seconds it took."""
    start = time.perf_counter()
    result = extractor.extract_page(page, url=url)
    return result, time.perf_counter() - start


def extract_text_timed(
    extractor: Extractor, text: str, url: str | None, base_url: str | None
) -> tuple[Extraction, float]:
    """Parse `text` exactly as Scrapy's ``response.selector`` does, then extract.

    Same parse, same result: the output does not depend on the executor.
    """
    from parsel import Selector

    start = time.perf_counter()
    selector = Selector(text=text, type="html", base_url=base_url)
    result = extractor.extract(selector, url=url)
    return result, time.perf_counter() - start


# The worker process's extractor and overview detector, built once by init_worker, and
# whether the crawl stores Markdown or HTML, metadata, images.
_extractor: Extractor | None = None
_detector: OverviewDetector | None = None
_markup = True
_metadata = True
_images = True


def init_worker(config: WorkerConfig, templates: TemplateStore | None = None) -> None:
    """Build the worker's Extractor and, when the crawl judges pages, its OverviewDetector, from
    the crawl's settings as the crawl process read them. What items do not store (Markdown and
    HTML, article metadata, images) is not made or sent back. `templates`: the crawl's template store as
    workers reach it (Redis, or the crawl process's memory store through a StoreServer)."""
    global _extractor, _detector, _markup, _metadata, _images
    _extractor = config.settings.extractor(templates)
    _detector = config.settings.detector() if config.judges else None
    _markup = config.markup
    _metadata = config.metadata
    _images = config.images


def _to_send(result: Extraction) -> Extraction:
    """What of an extraction goes back to the crawl process."""
    return result.trim(markup=_markup, metadata=_metadata, images=_images)


def in_worker(func: Callable[..., tuple[Extraction, float]], *args: Any) -> tuple[Extraction, float]:
    """Run `func(extractor, *args)` with the worker's extractor."""
    result, seconds = func(_extractor, *args)
    return _to_send(result), seconds


def judge_page(
    text: str, url: str, base_url: str, html: bool, extract: str
) -> tuple[OverviewVerdict, Extraction | None, float, float]:
    """OverviewMiddleware's and MainContentPipeline's work on one page, in one worker task.

    `text` is parsed once, exactly as Scrapy's ``response.selector`` parses it,
    and walked once, as ``response_pages.response_page`` walks it; overview detection and
    extraction both use that walk, so the results are those of "inline".
    `html` False: a response that is not HTML but judged on request (meta), read
    as the middleware reads it inline. `extract`: "no"; "yes"; or "articles",
    not for an overview page, whose items are dropped anyway.

    Returns (verdict, Extraction or None, detection seconds, extraction seconds),
    timed like "inline" times them: the parse is not counted.
    """
    from parsel import Selector

    detector = _detector
    assert detector is not None  # init_worker built it: the crawl judges pages in workers
    if not html:
        start = time.perf_counter()
        verdict = detector.detect(text, url=url)
        return verdict, None, time.perf_counter() - start, 0.0
    selector = Selector(text=text, type="html", base_url=base_url)
    start = time.perf_counter()
    page = build_page(selector.root, base_url=url)
    verdict = detector.detect_page(page, url=url)
    detected = time.perf_counter()
    if extract == "no" or _extractor is None or (extract == "articles" and verdict.is_overview):
        return verdict, None, detected - start, 0.0
    result = _extractor.extract_page(page, url=url)  # walks again if it keeps comments
    return verdict, _to_send(result), detected - start, time.perf_counter() - detected
