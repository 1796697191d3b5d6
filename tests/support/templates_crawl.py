"""Crawl tests/support/template_site.py's site (one template, different articles) with site memory,
and print what each crawl produced, as JSON.

    python tests/support/templates_crawl.py BASE_URL SPECS_JSON OUTPUT_JSON

SPECS_JSON maps a crawl name to its settings. Each article links to the next one only and
requests go one at a time, so the pages reach the template store in a known order.
Output: name -> {"items", "stats", "log"}.
"""

from __future__ import annotations

import json
import logging
import sys

import scrapy
from crawl_items import Collector
from scrapy.crawler import CrawlerProcess

BASE_SETTINGS = {
    "LOG_LEVEL": "INFO",
    "TELNETCONSOLE_ENABLED": False,
    "REMOTE_CONTROL_ENABLED": False,
    "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
    "ADDONS": {"scrapy_boilerplate.Addon": 0},
    "CONCURRENT_REQUESTS": 1,
    "BOILERPLATE_OVERVIEW_ACTION": "off",
}


class ChainSpider(scrapy.Spider):
    name = "chain"

    def __init__(self, start_url: str, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [start_url]
        self.collected: list = []
        self.logged: list = []

    def parse(self, response):
        # TEST_REDIS_SHUTDOWN_AT = [redis URL, n]: stop that Redis server when page n arrives.
        shutdown = self.settings.get("TEST_REDIS_SHUTDOWN_AT")
        if shutdown and response.url.endswith(f"/story-{shutdown[1]}.html"):
            import redis

            try:
                redis.Redis.from_url(shutdown[0]).shutdown(nosave=True)
            except redis.ConnectionError:
                pass  # the server closes the connection as it goes
        yield {"url": response.url}
        for href in response.css("ul.next a::attr(href)").getall():
            yield response.follow(href)


class SpiderLogHandler(logging.Handler):
    def emit(self, record):
        if record.levelno < logging.WARNING and not record.name.startswith("scrapy_boilerplate"):
            return
        spider = getattr(record, "spider", None)
        if spider is not None and hasattr(spider, "logged"):
            spider.logged.append([record.levelname, record.name, record.getMessage()])


def main(start_url: str, specs: dict) -> dict:
    process = CrawlerProcess(BASE_SETTINGS)
    logging.getLogger().addHandler(SpiderLogHandler(logging.DEBUG))
    crawlers = {}
    for name, settings in specs.items():
        spidercls = type(
            f"{name}_spider", (ChainSpider,), {"custom_settings": {**settings, "ITEM_PIPELINES": {Collector: 1000}}}
        )
        crawler = process.create_crawler(spidercls)
        crawlers[name] = crawler
        process.crawl(crawler, start_url=start_url)
    process.start()
    return {
        name: {"items": crawler.spider.collected, "stats": crawler.stats.get_stats(), "log": crawler.spider.logged}
        for name, crawler in crawlers.items()
    }


if __name__ == "__main__":
    result = main(sys.argv[1], json.loads(sys.argv[2]))
    with open(sys.argv[3], "w", encoding="utf-8") as output:
        json.dump(result, output, default=str)
