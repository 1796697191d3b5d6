"""The crawl's judge of near-duplicate items (BOILERPLATE_DUPLICATES): MainContentPipeline asks
it about each item's extracted text, in the crawl process, whatever the executor.

- ``"flag"``: the item goes on; BOILERPLATE_DUPLICATE_OF_FIELD (when set) gets the URL of the
  first item whose text it repeats, None for the first.
- ``"drop"``: later copies are dropped (``DropItem`` naming the first URL).

The texts seen live in a DuplicateIndex over the store BOILERPLATE_DUPLICATES_STORE names
(memory, or a Redis shared by every process of the crawl). A Redis outage leaves items not
judged (they go on, unflagged), with one WARNING per outage.

Stats ``boilerplate/duplicates/*``: ``judged`` (items judged), ``copies`` (of which repeats:
``exact`` and ``near``), ``dropped``, ``too_short`` (under BOILERPLATE_DUPLICATES_MIN_WORDS, not
judged), ``unavailable`` (the store did not answer, not judged).
"""

from __future__ import annotations

import logging
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import DropItem

from .. import settings as bp
from ..core.duplicates.index import DuplicateIndex, Judgement
from ..core.duplicates.store import DuplicateStore, MemoryDuplicateStore
from ..core.redis_link import redacted
from .workers import wait

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from ..core.extraction import Extraction

logger = logging.getLogger(__name__)

STAT_PREFIX = "boilerplate/duplicates/"


def store_from_settings(settings: bp.BoilerplateSettings, bot_name: str | None = None) -> DuplicateStore:
    """The store BOILERPLATE_DUPLICATES_STORE names; SettingError for a Redis URL without the
    redis package. `bot_name`: the project's BOT_NAME, for the default key prefix."""
    url = settings.duplicates_store
    if url.lower() == "memory":
        return MemoryDuplicateStore(settings.duplicates_max_items)
    try:
        from ..core.duplicates.redis_store import RedisDuplicateStore

        return RedisDuplicateStore.from_url(
            url,
            timeout=settings.template_timeout,
            prefix=bp.duplicates_prefix(settings, bot_name),
            ttl=settings.duplicates_ttl,
            retry_after=settings.template_retry_after,
            quiet=True,
        )
    except ImportError:
        raise bp.SettingError(
            bp.DUPLICATES_STORE,
            redacted(url),
            '"memory", or a Redis URL once the redis '
            'package is installed (pip install "scrapy-boilerplate-removal[redis]")',
        ) from None


class CrawlDuplicates:
    """The crawl's DuplicateIndex, its stats and its outage log.

    A Redis store is asked from a thread of its own (THREADS of them), never on the reactor: a
    slow Redis (up to BOILERPLATE_TEMPLATE_TIMEOUT an item) must not hold the crawl's other
    requests. The memory store answers in a few milliseconds (its LSH buckets are capped) and is
    asked in place, in the order items come.
    """

    #: Threads asking a Redis store (items waiting for it do not hold the reactor).
    THREADS = 4

    def __init__(self, crawler: Crawler, settings: bp.BoilerplateSettings) -> None:
        self._crawler = weakref.ref(crawler)
        self.action = settings.duplicates
        self.with_title = settings.duplicates_title  # BOILERPLATE_DUPLICATES_TITLE
        self.index = DuplicateIndex(
            settings.duplicates_threshold,
            settings.duplicates_min_words,
            store_from_settings(settings, crawler.settings.get("BOT_NAME")),
        )
        where = getattr(self.index.store, "where", None)
        self.where = where() if where is not None else "(memory)"
        self._threads: ThreadPoolExecutor | None = None
        if not isinstance(self.index.store, MemoryDuplicateStore):
            self._threads = ThreadPoolExecutor(self.THREADS, thread_name_prefix="boilerplate-duplicates")
        self._failing = False
        crawler.signals.connect(self.close, signal=signals.spider_closed)

    def close(self, **kwargs: Any) -> None:
        if self._threads is not None:
            self._threads.shutdown(wait=False, cancel_futures=True)
        self.index.close()

    def judged_text(self, extraction: Extraction) -> str:
        """What is judged of an extraction: its text, or its headline and text (an empty text
        stays empty: not judged)."""
        if self.with_title and extraction.text:
            return f"{extraction.title or ''}\n{extraction.text}"
        return extraction.text

    async def judge(self, text: str, url: str | None) -> str | None:
        """The URL of the first item whose text `text` repeats, or None; raises DropItem for a
        copy with "drop"."""
        crawler = self._crawler()
        if crawler is None or not url:
            return None
        stats, spider = crawler.stats, crawler.spider
        try:
            if self._threads is None:
                verdict = self.index.judge(text, url)
            else:
                verdict = await wait(self._threads.submit(self.index.judge, text, url))
        except Exception as exc:  # noqa: BLE001 - a failing store must not cost the item
            verdict = Judgement(None, 0.0, "unavailable")
            logger.debug(
                "Duplicates: judging %(url)s failed: %(error)r", {"url": url, "error": exc}, extra={"spider": spider}
            )
        if verdict.reason == "short":
            stats.inc_value(STAT_PREFIX + "too_short")
            return None
        if verdict.reason == "unavailable":
            stats.inc_value(STAT_PREFIX + "unavailable")
            if not self._failing:
                self._failing = True
                logger.warning(
                    "Duplicates: the store %(store)s did not answer on %(url)s; items are "
                    "not judged until it answers again (%(stat)s counts them)",
                    {"store": self.where, "url": url, "stat": STAT_PREFIX + "unavailable"},
                    extra={"spider": spider},
                )
            return None
        if self._failing:
            self._failing = False
            logger.info(
                "Duplicates: the store %(store)s answers again (%(url)s)",
                {"store": self.where, "url": url},
                extra={"spider": spider},
            )
        stats.inc_value(STAT_PREFIX + "judged")
        if not verdict.is_copy:
            return None
        stats.inc_value(STAT_PREFIX + "copies")
        stats.inc_value(STAT_PREFIX + verdict.reason)
        if self.action == "drop":
            stats.inc_value(STAT_PREFIX + "dropped")
            # INFO, not the WARNING of other drops: dropping copies is what was asked for.
            raise DropItem(
                f"Duplicate of {verdict.first} (similarity {verdict.similarity:.2f}): {url}", log_level="INFO"
            )
        logger.debug(
            "Duplicate of %(first)s (similarity %(similarity).2f): %(url)s",
            {"first": verdict.first, "similarity": verdict.similarity, "url": url},
            extra={"spider": spider},
        )
        return verdict.first
