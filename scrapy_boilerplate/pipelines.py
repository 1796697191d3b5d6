"""Item pipeline writing the main content of each item's page into the item.

``MainContentPipeline`` needs to know which response an item was yielded
from, which Scrapy does not tell item pipelines. ``ItemResponseMiddleware``
(a spider middleware in :mod:`scrapy_boilerplate.middlewares`) records it in
an :class:`ItemSources` registry (crawl/item_sources.py) shared through the crawler; the pipeline
takes the entry back, and the ``item_scraped``/``item_dropped``/``item_error``
signals clear whatever is left, so nothing outlives the item's processing.
"""

from __future__ import annotations

import logging
import time
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter, is_item
from scrapy import Item
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.http import HtmlResponse, Response
from scrapy.utils.response import get_base_url

from . import settings as bp
from .core.extractor import Extraction, Extractor
from .core.scoring.model import ModelError
from .crawl.config import crawl_settings
from .crawl.duplicates import CrawlDuplicates
from .crawl.item_sources import ItemSources as ItemSources  # re-exported: its import path before crawl/
from .crawl.item_sources import item_sources
from .crawl.response_pages import cached_page, response_page, response_verdict
from .crawl.site_memory import site_memory
from .crawl.site_rules import SiteRuleStats
from .crawl.tasks import extract_page_timed, extract_text_timed, extract_timed, in_worker
from .crawl.worker_pool import WorkerLost
from .crawl.workers import CrawlWorkers, count_lost, crawl_workers, failed_future, wait

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)

# Item fields the pipeline can write: (setting name, Extraction attribute, value when nothing).
# "overview" is not the extraction's: OverviewMiddleware's verdict on the page, as a dict.
OUTPUTS: tuple[tuple[str, str, Any], ...] = (
    (bp.TEXT_FIELD, "text", ""),
    (bp.TITLE_FIELD, "title", None),
    (bp.MARKDOWN_FIELD, "markdown", ""),
    (bp.CLEAN_HTML_FIELD, "html", ""),
    (bp.IMAGES_FIELD, "images", []),
    # Article metadata: unknown is None or [], never a guess.
    *((setting, attr, [] if attr == "authors" else None) for attr, setting in bp.METADATA_SETTINGS.items()),
    (bp.OVERVIEW_FIELD, "overview", None),
    # Not the extraction's either: the URL of the earlier item this one repeats (crawl/duplicates.py).
    (bp.DUPLICATE_OF_FIELD, "duplicate_of", None),
)


# --- the pipeline -----------------------------------------------------------------------


class MainContentPipeline:
    """Writes the main content of each item's page into the item.

    The page is the response the item was yielded from (extracted once, however
    many items it yields), or the HTML in the field named by BOILERPLATE_HTML_FIELD.
    A failure never loses the item: it goes on with an empty text field, and the
    failure is logged with the URL and counted.
    """

    @bp.stops_crawl
    def __init__(self, crawler: Crawler):
        settings = crawl_settings(crawler)
        if not settings.enabled:
            raise NotConfigured
        self.crawler = crawler
        self.stats = crawler.stats
        self.sources = item_sources(crawler)
        fields = settings.outputs
        self.outputs = [(name, fields[attr], attr, empty) for name, attr, empty in OUTPUTS if attr in fields]
        self.html_field: str | None = settings.html_field
        self.html_field_remove = settings.html_field_remove
        self.max_body_size = settings.max_body_size
        self.executor = settings.executor
        self.thread_count = settings.executor_workers
        # "thread" waits this long for a page (a stuck thread cannot be stopped, its item goes
        # on); "process" kills the page's worker after as long (crawl/worker_pool.py).
        self.thread_timeout = settings.executor_timeout if self.executor == "thread" else None
        self.model = settings.model
        self.options = settings.extractor_options()
        # The walk crawl/response_pages.py shares skips comments: usable unless comments are wanted.
        self.walk_shared = not self.options["include_comments"]
        # Load the model now: a bad path or favor value is a configuration error
        # that should stop the crawl before it starts, not empty every item.
        # Site memory (BOILERPLATE_TEMPLATE_STORE, crawl/site_memory.py): None when off.
        self.site_memory = site_memory(crawler)
        self.site_rules = SiteRuleStats(crawler)
        try:
            self.extractor = Extractor(self.model, templates=self.site_memory.store, **self.options)
        except ModelError as exc:
            raise ModelError(f"{bp.MODEL} = {self.model!r}: {exc}") from None
        # Near-duplicate items (BOILERPLATE_DUPLICATES), judged here on the extracted text.
        self.duplicates = CrawlDuplicates(crawler, settings) if settings.duplicates != "off" else None
        self.pool: ThreadPoolExecutor | None = None  # "thread"
        self.workers: CrawlWorkers | None = None  # "process"
        if self.executor == "process":
            self.workers = crawl_workers(crawler)
            self.workers.use_for_extraction(self.site_memory)
        # response -> Future of (Extraction, seconds), or None when not extracted:
        # one extraction per response, however many items it yields.
        self._by_response: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        # Item classes already checked: class -> (outputs it can hold, whether some are missing).
        self._outputs_by_class: dict[type, tuple[list, bool]] = {}
        self._unwritable: set[type] = set()
        self._warned_no_source = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def close_spider(self, spider: Spider | None = None) -> None:
        # The worker processes of "process" stop at spider_closed (crawl/workers.py).
        if self.pool is not None:
            # Every item is done by now; do not make the reactor wait for thread exits.
            self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = None

    async def process_item(self, item: Any, spider: Spider | None = None) -> Any:
        try:
            return await self._process(item)
        except DropItem:  # a later copy, with BOILERPLATE_DUPLICATES = "drop"
            raise
        except Exception:  # a bug here must not cost the item
            self.stats.inc_value("boilerplate/errors")
            logger.exception(
                "MainContentPipeline failed on an item; it goes on unchanged", extra={"spider": self.crawler.spider}
            )
            return item

    async def _process(self, item: Any) -> Any:
        response = self.sources.pop(item)
        if not is_item(item):
            return item
        if response is not None and _meta(response).get(bp.META_EXTRACT) is False:
            self.stats.inc_value("boilerplate/items_skipped")
            return item
        adapter = ItemAdapter(item)
        outputs = self._outputs_for(item)
        html = self._html_from_field(adapter)
        url = response.url if response is not None else None
        verdict = response_verdict(response)
        overview = verdict.to_dict() if verdict is not None else None

        if html is not None:
            future, owner = self._submit_html(html, url), True
        elif response is None:
            self._no_source(item)
            return self._write(adapter, outputs, None, overview)
        elif not isinstance(response, HtmlResponse):
            self.stats.inc_value("boilerplate/items_not_html")
            logger.debug(
                "Not extracted, not HTML (%(type)s): %(response)s",
                {"type": type(response).__name__, "response": response},
                extra={"spider": self.crawler.spider},
            )
            return self._write(adapter, outputs, None, overview)
        else:
            future, owner = self._submit_response(response)
        if future is None:
            return self._write(adapter, outputs, None, overview)

        try:
            extraction, seconds = await wait(future, self.thread_timeout)
        except Exception as exc:  # noqa: BLE001 - the item must go on whatever failed
            if owner:
                self._failed(exc, url)
            # The future keeps the exception for the page's other items: without this,
            # its traceback's frames would keep the response (a weak key) alive.
            exc.__traceback__ = None
            return self._write(adapter, outputs, None, overview)
        if owner:
            self.site_memory.account(extraction, url)
            self.site_rules.account(extraction, url)
            self.stats.inc_value("boilerplate/pages_extracted")
            self.stats.inc_value("boilerplate/extract_seconds_total", seconds)
            self.stats.max_value("boilerplate/extract_seconds_max", seconds)
            if not extraction.text:
                self.stats.inc_value("boilerplate/empty_extractions")
                logger.debug("No main content found on %(url)s", {"url": url}, extra={"spider": self.crawler.spider})
        self.stats.inc_value("boilerplate/items_enriched")
        # Judged once extracted and written (a bug in the judging leaves the item enriched).
        self._write(adapter, outputs, extraction, overview)
        if self.duplicates is not None:
            # Keyed by the page's URL, else the item's own "url" field (items with their HTML).
            key = url or (adapter.get("url") if "url" in adapter else None)
            # DropItem with "drop".
            first = await self.duplicates.judge(extraction.text, key if isinstance(key, str) else None)
            self._write(adapter, [o for o in outputs if o[2] == "duplicate_of"], extraction, overview, first)
        return adapter.item

    # -- where the HTML comes from --

    def _html_from_field(self, adapter: ItemAdapter) -> str | bytes | None:
        if not self.html_field or self.html_field not in adapter:
            return None
        html = adapter.get(self.html_field)
        if self.html_field_remove:
            # Mappings (dict, scrapy.Item) lose the key; a dataclass or attrs field is cleared.
            if isinstance(adapter.item, dict | Item) or adapter.get_field_names_from_class(type(adapter.item)) is None:
                del adapter[self.html_field]
            else:
                adapter[self.html_field] = None
        if not html:
            return None
        if isinstance(html, memoryview | bytearray):
            html = bytes(html)
        if not isinstance(html, str | bytes):
            self.stats.inc_value("boilerplate/html_field_invalid")
            logger.warning(
                "Item field %(field)s holds %(type)s, not HTML text; ignored",
                {"field": self.html_field, "type": type(html).__name__},
                extra={"spider": self.crawler.spider},
            )
            return None
        return html

    def _too_large(self, size: int, url: str | None) -> bool:
        if self.max_body_size and size > self.max_body_size:
            self.stats.inc_value("boilerplate/body_too_large")
            logger.warning(
                "Not extracted, %(size)d bytes is over %(setting)s=%(limit)d: %(url)s",
                {
                    "size": size,
                    "setting": bp.MAX_BODY_SIZE,
                    "limit": self.max_body_size,
                    "url": url or "an item's HTML field",
                },
                extra={"spider": self.crawler.spider},
            )
            return True
        return False

    def _submit_response(self, response: HtmlResponse) -> tuple[Future | None, bool]:
        """The extraction of `response`, started if this is its first item."""
        if response in self._by_response:
            return self._by_response[response], False
        if self._too_large(len(response.body), response.url):
            self._by_response[response] = None  # logged and counted once per response
            return None, False
        if self.workers is not None:
            # Extracted already, in OverviewMiddleware's task for this response; or that
            # task's worker died or hung on it, and no other worker is risked on it.
            done = self.workers.take_extraction(response)
            if done is not None:
                future = self._by_response[response] = Future()
                if isinstance(done, WorkerLost):
                    future.set_exception(done)
                else:
                    future.set_result(done)
                return future, True
        # Reuse what the spider or OverviewMiddleware already did: the walk of the
        # page (crawl/response_pages.py), else Scrapy's parse. The private attribute is read so that
        # "thread" and "process" do not parse in the reactor thread when nobody has.
        page = cached_page(response) if self.walk_shared else None
        selector = getattr(response, "_cached_selector", None)
        if self.executor == "inline" and self.walk_shared:
            future = self._run(_extract_response, response)
        elif self.executor != "process" and page is not None:
            future = self._run(extract_page_timed, page, response.url)
        elif self.executor == "inline" or (self.executor == "thread" and selector is not None):
            future = self._run(extract_timed, response.selector, response.url)
        else:
            future = self._run(extract_text_timed, response.text, response.url, get_base_url(response))
        self._by_response[response] = future
        return future, True

    def _submit_html(self, html: str | bytes, url: str | None) -> Future | None:
        if self._too_large(len(html), url):
            return None
        return self._run(extract_timed, html, url)

    def _run(self, func: Callable[..., tuple[Extraction, float]], *args: Any) -> Future:
        """`func(extractor, *args)` with the configured executor; never raises."""
        if self.workers is not None:
            return self.workers.submit(in_worker, func, *args)
        try:
            if self.executor == "inline":
                future: Future = Future()
                future.set_result(func(self.extractor, *args))
                return future
            if self.pool is None:
                self.pool = ThreadPoolExecutor(self.thread_count, thread_name_prefix="boilerplate")
            return self.pool.submit(func, self.extractor, *args)
        except Exception as exc:  # noqa: BLE001 - reported by the waiting item
            return failed_future(exc)

    def _failed(self, error: Exception, url: str | None) -> None:
        """Log and count a failed extraction."""
        if isinstance(error, WorkerLost):
            if self.workers is not None:
                self.workers.lost(error, url)
            else:
                count_lost(self.crawler, error, url)  # a thread that did not come back in time
        self.stats.inc_value("boilerplate/errors")
        logger.warning(
            "Main-content extraction failed for %(url)s: %(error)r; the item goes on with an empty %(field)s",
            {
                "url": url or "an item's HTML field",
                "error": error,
                "field": self.outputs[0][1] if self.outputs else "field",
            },
            exc_info=logger.isEnabledFor(logging.DEBUG) and not isinstance(error, WorkerLost),
            extra={"spider": self.crawler.spider},
        )

    def _no_source(self, item: Any) -> None:
        self.stats.inc_value("boilerplate/items_without_response")
        if not self.sources.middleware_enabled and not self._warned_no_source:
            self._warned_no_source = True
            logger.warning(
                "%(cls)s items reach MainContentPipeline without their response: "
                "enable scrapy_boilerplate.middlewares.ItemResponseMiddleware in "
                "SPIDER_MIDDLEWARES (the add-on does), or set %(setting)s",
                {"cls": type(item).__name__, "setting": bp.HTML_FIELD},
                extra={"spider": self.crawler.spider},
            )

    # -- writing the item --

    def _outputs_for(self, item: Any) -> list:
        """The configured outputs `item`'s class can hold; one error per class for the others."""
        cls = type(item)
        known = self._outputs_by_class.get(cls)
        if known is None:
            names = ItemAdapter.get_field_names_from_class(cls)
            outputs = [o for o in self.outputs if names is None or o[1] in names]
            for setting, field, _, _ in self.outputs:
                if names is not None and field not in names:
                    logger.error(
                        "%(cls)s has no field %(field)r, which %(setting)s names: add "
                        "the field to the item class or change the setting; %(cls)s "
                        "items go on without it",
                        {"cls": cls.__qualname__, "field": field, "setting": setting},
                        extra={"spider": self.crawler.spider},
                    )
            known = self._outputs_by_class[cls] = (outputs, len(outputs) < len(self.outputs))
        outputs, missing = known
        if missing:
            self.stats.inc_value("boilerplate/field_missing")
        return outputs

    def _write(
        self,
        adapter: ItemAdapter,
        outputs: list,
        extraction: Extraction | None,
        overview: dict | None = None,
        duplicate_of: str | None = None,
    ) -> Any:
        for setting, field, attr, empty in outputs:
            value: Any
            if attr == "overview":
                value = overview
            elif attr == "duplicate_of":
                value = duplicate_of
            else:
                value = getattr(extraction, attr) if extraction is not None else empty
            try:
                adapter[field] = list(value) if isinstance(value, list) else value
            except Exception as exc:  # noqa: BLE001 - e.g. a frozen dataclass; keep the item
                cls = type(adapter.item)
                if cls not in self._unwritable:
                    self._unwritable.add(cls)
                    logger.error(
                        "Cannot write %(field)r (%(setting)s) into %(cls)s items: %(error)r; they go on unchanged",
                        {"field": field, "setting": setting, "cls": cls.__qualname__, "error": exc},
                        extra={"spider": self.crawler.spider},
                    )
                self.stats.inc_value("boilerplate/field_missing")
                break
        return adapter.item


def _extract_response(extractor: Extractor, response: HtmlResponse) -> tuple[Extraction, float]:
    """Inline: extract from the response's shared walk, made here if nobody made it yet."""
    start = time.perf_counter()
    try:
        page = response_page(response)
    except Exception:  # noqa: BLE001 - extract() turns bad input into an empty result
        return extract_timed(extractor, response.selector, response.url)
    result = extractor.extract_page(page, url=response.url)
    return result, time.perf_counter() - start


def _meta(response: Response) -> dict:
    # response.meta raises AttributeError when the response is not tied to a request.
    request = getattr(response, "request", None)
    return request.meta if request is not None else {}
