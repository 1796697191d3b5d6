"""Extraction calls that MainContentPipeline runs inline, in threads or in worker processes.

This module imports no Scrapy: worker processes import it to unpickle the
function they run, and should start fast.
"""

from __future__ import annotations

import time

from .core.extractor import Extraction, Extractor


def extract_timed(extractor: Extractor, html, url: str | None) -> tuple[Extraction, float]:
    """`extractor.extract(html)` and the seconds it took."""
    start = time.perf_counter()
    result = extractor.extract(html, url=url)
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


# The worker process's extractor, built once by init_worker.
_extractor: Extractor | None = None


def init_worker(model, options: dict) -> None:
    global _extractor
    _extractor = Extractor(model, **options)


def in_worker(func, *args) -> tuple[Extraction, float]:
    """Run `func(extractor, *args)` with the worker's extractor."""
    result, seconds = func(_extractor, *args)
    result.blocks = []   # per-block debugging detail: not worth pickling back
    return result, seconds
