"""Run crawls of tests/support/pipeline_site.py's site at once and print what they produced, as JSON.

    python tests/support/pipeline_crawl.py BASE_URL SPECS_JSON OUTPUT_JSON

SPECS_JSON maps a crawl name to {"settings": {...}, "kwargs": {...}}, and optionally
"spider": "module.Class" (another spider of tests/support; default pipeline_site.PagesSpider);
settings go into the spider's custom_settings, as a project would set them. The output
(written to OUTPUT_JSON: worker processes share standard output) maps each name to {"items", "stats", "log", "left_in_sources"}: the items as
dicts (with their class name), the crawl's stats, its log records (all of
scrapy_boilerplate's, warnings and errors of the others), and how many ItemSources entries were left when the item pipelines closed.

Extraction fails on purpose for pages under /fail/: the patch below is applied
at import, so it also holds in the worker processes of BOILERPLATE_EXECUTOR =
"process", which import this script again ("spawn"). There the worker dies
instead, as a crash in a C extension would kill it.
"""

from __future__ import annotations

import importlib
import json
import logging
import multiprocessing
import os
import sys

from itemadapter import ItemAdapter
from pipeline_site import PagesSpider
from scrapy.crawler import CrawlerProcess

from scrapy_boilerplate.core.extractor import Extractor
from scrapy_boilerplate.pipelines import item_sources


def _failing(method):
    def extract_or_fail(self, html, url=None, **options):
        if url and "/fail/" in url:
            if multiprocessing.parent_process() is not None:
                os._exit(3)
            raise RuntimeError("extraction failed on purpose")
        return method(self, html, url=url, **options)

    return extract_or_fail


Extractor.extract = _failing(Extractor.extract)
Extractor.extract_page = _failing(Extractor.extract_page)

BASE_SETTINGS = {
    "LOG_LEVEL": "INFO",
    "TELNETCONSOLE_ENABLED": False,
    "REMOTE_CONTROL_ENABLED": False,
    "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
}


class Collector:
    """Last item pipeline: keeps the items, and what ItemSources holds at the end."""

    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def open_spider(self):
        self.crawler.spider.collected = []

    def process_item(self, item):
        self.crawler.spider.collected.append({"class": type(item).__name__, **ItemAdapter(item).asdict()})
        return item

    def close_spider(self):
        self.crawler.spider.left_in_sources = len(item_sources(self.crawler))


class SpiderLogHandler(logging.Handler):
    """Keeps each crawl's log records (from scrapy_boilerplate, and warnings and errors
    from anywhere) on its spider; Scrapy's and our records carry extra={"spider"}."""

    def emit(self, record):
        if record.levelno < logging.WARNING and not record.name.startswith("scrapy_boilerplate"):
            return
        spider = getattr(record, "spider", None)
        if spider is not None and hasattr(spider, "logged"):
            spider.logged.append([record.levelname, record.getMessage()])


def main(base_url: str, specs: dict) -> dict:
    process = CrawlerProcess(BASE_SETTINGS)
    # log_count/* stats count every crawl's records in this process: keep each crawl's own.
    logging.getLogger("scrapy_boilerplate").setLevel(logging.DEBUG)
    logging.getLogger().addHandler(SpiderLogHandler(logging.DEBUG))
    crawlers = {}
    for name, spec in specs.items():
        settings = spec.get("settings", {})
        pipelines = {**settings.get("ITEM_PIPELINES", {}), Collector: 1000}
        base = PagesSpider
        if "spider" in spec:
            module, _, cls = spec["spider"].rpartition(".")
            base = getattr(importlib.import_module(module), cls)
        spidercls = type(f"{name}_spider", (base,), {"custom_settings": {**settings, "ITEM_PIPELINES": pipelines}})
        crawler = process.create_crawler(spidercls)
        crawlers[name] = crawler
        process.crawl(crawler, base_url=base_url, **spec.get("kwargs", {}))
    process.start()
    out = {}
    for name, crawler in crawlers.items():
        spider = crawler.spider
        out[name] = {
            "items": getattr(spider, "collected", []),
            "stats": crawler.stats.get_stats(),
            "log": spider.logged,
            "left_in_sources": getattr(spider, "left_in_sources", None),
        }
    return out


if __name__ == "__main__":
    result = main(sys.argv[1], json.loads(sys.argv[2]))
    with open(sys.argv[3], "w", encoding="utf-8") as output:
        json.dump(result, output, default=str)
