"""Run crawls of the overview test site and print what they produced, as JSON.

    python tests/support/overview_crawl.py BASE_URL SPECS_JSON

SPECS_JSON maps a crawl name to {"spider": "plain" | "crawl", "settings": {...},
"kwargs": {...}}. All crawls run at once in this process, with Scrapy's
default reactor and download handlers, like a real ``scrapy crawl``. The output
maps each name to {"responses", "items", "stats", "log"}: the responses that
reached the spider with what they finally yielded (overview_site.RecorderMiddleware),
the items scraped, the crawl's stats and the scrapy_boilerplate log records.
"""

from __future__ import annotations

import json
import logging
import sys

from overview_site import MAX_BODY_SIZE, SPIDERS
from scrapy.crawler import CrawlerProcess

BASE_SETTINGS = {
    "DOWNLOADER_MIDDLEWARES": {"scrapy_boilerplate.middlewares.OverviewMiddleware": 570},
    "SPIDER_MIDDLEWARES": {
        "scrapy_boilerplate.middlewares.OverviewLinksOnlyMiddleware": 800,
        # Nearest the engine: sees the output after every other middleware.
        "overview_site.RecorderMiddleware": 10,
    },
    "BOILERPLATE_MAX_BODY_SIZE": MAX_BODY_SIZE,
    "LOG_LEVEL": "INFO",
    "TELNETCONSOLE_ENABLED": False,
    "REMOTE_CONTROL_ENABLED": False,
}


class SpiderLogHandler(logging.Handler):
    """Keeps each crawl's scrapy_boilerplate log records on its spider (records carry extra={"spider"})."""

    def emit(self, record):
        spider = getattr(record, "spider", None)
        if spider is not None and hasattr(spider, "logged"):
            spider.logged.append([record.levelname, record.getMessage()])


def main(base_url: str, specs: dict) -> dict:
    process = CrawlerProcess(BASE_SETTINGS)
    handler = SpiderLogHandler(logging.DEBUG)
    package_logger = logging.getLogger("scrapy_boilerplate")
    package_logger.setLevel(logging.DEBUG)
    package_logger.addHandler(handler)
    crawlers = {}
    for name, spec in specs.items():
        # Per-crawl settings through custom_settings, as a project would set them per spider.
        spidercls = type(f"{name}_spider", (SPIDERS[spec["spider"]],), {"custom_settings": spec.get("settings", {})})
        crawler = process.create_crawler(spidercls)
        crawlers[name] = crawler
        process.crawl(crawler, base_url=base_url, **spec.get("kwargs", {}))
    process.start()
    return {
        name: {
            "responses": crawler.spider.responses,
            "items": crawler.spider.scraped,
            "stats": crawler.stats.get_stats(),
            "log": crawler.spider.logged,
        }
        for name, crawler in crawlers.items()
    }


if __name__ == "__main__":
    result = main(sys.argv[1], json.loads(sys.argv[2]))
    json.dump(result, sys.stdout, default=str)
