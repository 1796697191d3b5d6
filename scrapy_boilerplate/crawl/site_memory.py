"""The crawl's site memory (BOILERPLATE_TEMPLATE_STORE): one template store per crawl,
shared by MainContentPipeline and, with BOILERPLATE_EXECUTOR = "process", its workers.

- ``"memory"``: a MemoryTemplateStore in the crawl process. With "process", the workers
  reach it through a local socket (crawl/store_server.py), one round trip per page.
- ``"redis://..."``: a RedisTemplateStore; with "process" each worker process opens its own
  connection to the same Redis (one round trip per page, from the worker).

Stats ``boilerplate/templates/*``: ``pages_recorded``, ``sites`` (sites whose first page this
crawl recorded), ``evidence_used`` (pages extracted with the evidence, past the warm-up),
``errors`` (pages the store failed on, extracted without site memory).
"""

from __future__ import annotations

import logging
import weakref
from typing import TYPE_CHECKING, Any

from scrapy import signals

from .. import settings as bp
from ..core.site_memory.templates import MemoryTemplateStore, TemplateStore
from .config import crawl_settings
from .weakcache import WeakCache

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

    from ..core.extraction import Extraction
    from .store_server import StoreServer

logger = logging.getLogger(__name__)

STAT_PREFIX = "boilerplate/templates/"


def store_from_settings(settings: BaseSettings | bp.BoilerplateSettings) -> TemplateStore | None:
    """The template store BOILERPLATE_TEMPLATE_STORE names (None when off), from Scrapy settings
    or the BoilerplateSettings that settings.read() made of them (SettingError on a bad value);
    ImportError when a Redis URL is named without the redis package."""
    if not isinstance(settings, bp.BoilerplateSettings):  # not from a crawler (the command, tests)
        settings = bp.read(settings)
    url = settings.template_store
    if url is None:
        return None
    if url.lower() == "memory":
        return MemoryTemplateStore(
            max_sites=settings.template_max_sites,
            max_fingerprints=settings.template_max_fingerprints,
            warmup=settings.template_warmup,
        )
    from ..core.site_memory.redis_store import RedisTemplateStore

    return RedisTemplateStore.from_url(
        url,
        timeout=settings.template_timeout,
        prefix=settings.template_prefix,
        ttl=settings.template_ttl,
        retry_after=settings.template_retry_after,
        max_fingerprints=settings.template_max_fingerprints,
        warmup=settings.template_warmup,
    )


class CrawlSiteMemory:
    """The crawl's template store and its stats."""

    def __init__(self, crawler: Crawler):
        self._crawler = weakref.ref(crawler)
        self.store = store_from_settings(crawl_settings(crawler))
        self._server: StoreServer | None = None
        self._failing = False
        # The store's own failure log is DEBUG: the crawl logs once per outage, with the spider.
        if self.store is not None and hasattr(self.store, "quiet"):
            self.store.quiet = True
        self.where = getattr(self.store, "where", lambda: "")() or "(memory)"
        if self.store is not None:
            crawler.signals.connect(self.close, signal=signals.spider_closed)

    def __bool__(self) -> bool:
        return self.store is not None

    def for_workers(self) -> TemplateStore | None:
        """The store as worker processes reach it: the same Redis, or this process's memory
        store through a StoreServer (started on first use)."""
        if not isinstance(self.store, MemoryTemplateStore):
            return self.store
        if self._server is None:
            from .store_server import StoreServer

            self._server = StoreServer(self.store)
        return self._server.client()

    def close(self, **kwargs: Any) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        close = getattr(self.store, "close", None)
        if close is not None:
            close()

    def account(self, extraction: Extraction, url: str | None = None) -> None:
        """Count what the site memory did on an extracted page, once; log the first page of
        each outage of the store."""
        info = extraction.site_memory
        if not info or info.get("counted"):
            return
        info["counted"] = True
        crawler = self._crawler()
        if crawler is None or crawler.stats is None:
            return
        stats = crawler.stats
        if info.get("failed"):
            stats.inc_value(STAT_PREFIX + "errors")
            if not self._failing:
                self._failing = True
                logger.warning(
                    "Site memory: the template store %(store)s failed on %(url)s; pages "
                    "are extracted without it until it answers again (%(stat)s counts them)",
                    {"store": self.where, "url": url or "a page", "stat": STAT_PREFIX + "errors"},
                    extra={"spider": crawler.spider},
                )
            return
        if self._failing:
            self._failing = False
            logger.info(
                "Site memory: the template store %(store)s answers again (%(url)s)",
                {"store": self.where, "url": url or "a page"},
                extra={"spider": crawler.spider},
            )
        if info.get("recorded"):
            stats.inc_value(STAT_PREFIX + "pages_recorded")
        if info.get("new_site"):
            stats.inc_value(STAT_PREFIX + "sites")
        if info.get("used"):
            stats.inc_value(STAT_PREFIX + "evidence_used")


#: site_memory(crawler): the crawler's CrawlSiteMemory.
site_memory = WeakCache(CrawlSiteMemory)
