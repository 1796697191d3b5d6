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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter, is_item
from scrapy import Item
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.http import HtmlResponse, Response

from . import settings as bp
from .core.extractor import Extraction
from .crawl.config import crawl_settings
from .crawl.duplicates import CrawlDuplicates
from .crawl.extractions import page_extractions
from .crawl.item_sources import ItemSources as ItemSources  # re-exported: its import path before crawl/
from .crawl.item_sources import item_sources
from .crawl.response_pages import response_verdict

if TYPE_CHECKING:
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


@dataclass(frozen=True)
class Output:
    """An item field the crawl writes: its setting, the field's name, the Extraction attribute
    (or "overview", "duplicate_of") and the value written when there is nothing."""

    setting: str
    field: str
    attr: str
    empty: Any


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
        self.outputs = [Output(name, fields[attr], attr, empty) for name, attr, empty in OUTPUTS if attr in fields]
        self.html_field: str | None = settings.html_field
        self.html_field_remove = settings.html_field_remove
        # One extraction per response, shared with ArticleSpider (crawl/extractions.py).
        self.extractions = page_extractions(crawler)
        # Near-duplicate items (BOILERPLATE_DUPLICATES), judged here on the extracted text.
        self.duplicates = CrawlDuplicates(crawler, settings) if settings.duplicates != "off" else None
        # Item classes already checked: class -> (outputs it can hold, whether some are missing).
        self._outputs_by_class: dict[type, tuple[list[Output], bool]] = {}
        self._unwritable: set[type] = set()
        self._warned_no_source = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

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
            extraction = await self.extractions.of_html(html, url)
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
            extraction = await self.extractions.of_response(response)
        if extraction is None:  # too large, or failed (logged and counted once per page)
            return self._write(adapter, outputs, None, overview)
        self.stats.inc_value("boilerplate/items_enriched")
        # Judged once extracted and written (a bug in the judging leaves the item enriched).
        self._write(adapter, outputs, extraction, overview)
        if self.duplicates is not None:
            # Keyed by the page's URL, else the item's own "url" field (items with their HTML).
            key = url or (adapter.get("url") if "url" in adapter else None)
            # DropItem with "drop".
            text = self.duplicates.judged_text(extraction)
            first = await self.duplicates.judge(text, key if isinstance(key, str) else None)
            self._write(adapter, [o for o in outputs if o.attr == "duplicate_of"], extraction, overview, first)
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

    def _outputs_for(self, item: Any) -> list[Output]:
        """The configured outputs `item`'s class can hold; one error per class for the others."""
        cls = type(item)
        known = self._outputs_by_class.get(cls)
        if known is None:
            names = ItemAdapter.get_field_names_from_class(cls)
            outputs = [o for o in self.outputs if names is None or o.field in names]
            for output in self.outputs:
                if names is not None and output.field not in names:
                    logger.error(
                        "%(cls)s has no field %(field)r, which %(setting)s names: add "
                        "the field to the item class or change the setting; %(cls)s "
                        "items go on without it",
                        {"cls": cls.__qualname__, "field": output.field, "setting": output.setting},
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
        outputs: list[Output],
        extraction: Extraction | None,
        overview: dict[str, Any] | None = None,
        duplicate_of: str | None = None,
    ) -> Any:
        for output in outputs:
            value: Any
            if output.attr == "overview":
                value = overview
            elif output.attr == "duplicate_of":
                value = duplicate_of
            else:
                value = getattr(extraction, output.attr) if extraction is not None else output.empty
            try:
                adapter[output.field] = list(value) if isinstance(value, list) else value
            except Exception as exc:  # noqa: BLE001 - e.g. a frozen dataclass; keep the item
                cls = type(adapter.item)
                if cls not in self._unwritable:
                    self._unwritable.add(cls)
                    logger.error(
                        "Cannot write %(field)r (%(setting)s) into %(cls)s items: %(error)r; they go on unchanged",
                        {"field": output.field, "setting": output.setting, "cls": cls.__qualname__, "error": exc},
                        extra={"spider": self.crawler.spider},
                    )
                self.stats.inc_value("boilerplate/field_missing")
                break
        return adapter.item


def _meta(response: Response) -> dict[str, Any]:
    # response.meta raises AttributeError when the response is not tied to a request.
    request = getattr(response, "request", None)
    return request.meta if request is not None else {}
