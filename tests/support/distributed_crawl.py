"""One of several Scrapy processes sharing one crawl through scrapy-redis (its scheduler and
dupefilter) and one site-memory store in the same Redis.

    python tests/support/distributed_crawl.py REDIS_URL OUTPUT_JSON [SETTINGS_JSON]

The spider reads its start URLs from the Redis list "distributed:start_urls", follows every
section and article link of the pages, yields {"url"} for each article, and closes after 3 idle seconds.
Output: {"items", "stats", "log"}.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import ClassVar

from scrapy.crawler import CrawlerProcess
from scrapy_redis.spiders import RedisSpider


class SiteSpider(RedisSpider):
    name = "distributed"
    redis_key = "distributed:start_urls"

    def parse(self, response):
        if "/news/" in response.url:
            yield {"url": response.url}
        for href in response.css("a::attr(href)").getall():
            if href.startswith(("/section/", "/news/story-")):
                yield response.follow(href)


class Collector:
    def __init__(self, crawler):
        self.crawler = crawler
        self.items: list = []

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_item(self, item):
        self.items.append(dict(item))
        self.crawler.collected = self.items
        return item


class Log(logging.Handler):
    records: ClassVar[list] = []

    def emit(self, record):
        if record.levelno >= logging.WARNING or record.name.startswith("scrapy_boilerplate"):
            self.records.append([record.levelname, record.name, record.getMessage()])


def main(redis_url: str, output: str, extra: dict) -> None:
    settings = {
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
        "ADDONS": {"scrapy_boilerplate.Addon": 0},
        "BOILERPLATE_OVERVIEW_ACTION": "off",
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_PERSIST": True,
        "REDIS_URL": redis_url,
        "MAX_IDLE_TIME_BEFORE_CLOSE": 3,
        "BOILERPLATE_TEMPLATE_STORE": redis_url,
        "BOILERPLATE_TEMPLATE_WARMUP": 2,
        "ITEM_PIPELINES": {Collector: 1000},
        **extra,
    }
    logging.getLogger().addHandler(Log(logging.DEBUG))
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(SiteSpider)
    process.crawl(crawler)
    process.start()
    with open(output, "w", encoding="utf-8") as out:
        json.dump(
            {"items": getattr(crawler, "collected", []), "stats": crawler.stats.get_stats(), "log": Log.records},
            out,
            default=str,
        )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]) if len(sys.argv) > 3 else {})
