"""Which response each in-flight item was yielded from (Scrapy does not tell item pipelines).

``ItemResponseMiddleware`` records it, ``MainContentPipeline`` takes it back, and the
``item_scraped``/``item_dropped``/``item_error`` signals clear whatever is left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy import signals

from .config import uses_component
from .weakcache import WeakCache

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response


class ItemSources:
    """In-flight items and the responses they were yielded from.

    Keyed by ``id(item)`` (dicts cannot be weakly referenced); each entry holds
    the item itself, so the id cannot be reused while the entry exists. Each
    recorded item ends with exactly one of item_scraped/item_dropped/item_error
    for its response; when a response has none left pending, its entries go,
    including those of items an earlier pipeline replaced by new objects.
    """

    def __init__(self, crawler: Crawler):
        self._items: dict[int, tuple[Any, Response]] = {}
        # response -> [items pending, ids recorded]; responses hash by identity.
        self._pending: dict[Response, _Pending] = {}
        crawler.signals.connect(self._item_done, signal=signals.item_scraped)
        crawler.signals.connect(self._item_done, signal=signals.item_dropped)
        crawler.signals.connect(self._item_done, signal=signals.item_error)
        crawler.signals.connect(self.clear, signal=signals.spider_closed)
        # Whether ItemResponseMiddleware records items (the settings say; not which ran first).
        self.middleware_enabled = uses_component(
            crawler, "SPIDER_MIDDLEWARES", "scrapy_boilerplate.middlewares.ItemResponseMiddleware"
        )

    def record(self, item: Any, response: Response) -> None:
        entry = self._pending.get(response)
        if entry is None:
            entry = self._pending[response] = _Pending()
        entry.count += 1
        entry.ids.add(id(item))
        self._items[id(item)] = (item, response)

    def pop(self, item: Any) -> Response | None:
        """The response `item` came from (None if unknown), forgetting the item."""
        entry = self._items.pop(id(item), None)
        return entry[1] if entry is not None and entry[0] is item else None

    def _item_done(self, item: Any = None, response: Any = None, **kwargs: Any) -> None:
        entry = self._pending.get(response)
        if entry is None:
            return
        found = self._items.get(id(item))
        if found is not None and found[0] is item:
            del self._items[id(item)]
        entry.count -= 1
        if entry.count <= 0:
            del self._pending[response]
            for key in entry.ids:
                if (found := self._items.get(key)) is not None and found[1] is response:
                    del self._items[key]

    def clear(self, **kwargs: Any) -> None:
        self._items.clear()
        self._pending.clear()

    def __len__(self) -> int:
        return len(self._items)


class _Pending:
    """A response's items still pending and the ids of all its recorded items."""

    __slots__ = ("count", "ids")

    def __init__(self) -> None:
        self.count = 0
        self.ids: set[int] = set()


#: item_sources(crawler): the crawler's ItemSources, shared by the middleware and the pipeline.
item_sources = WeakCache(ItemSources)
