"""Crawl a page whose JSON-LD holds lone surrogates and a KOI8-R page that declares no charset, with
the add-on, the metadata fields and BOILERPLATE_DETECT_CHARSET, exporting the items to JSON-lines and
CSV feeds; write the crawl's stats and log as JSON.

    python tests/support/charset_crawl.py PORT OUTPUT_DIR
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import scrapy
from charset_pages import russian_page, surrogate_page
from pipeline_crawl import BASE_SETTINGS, SpiderLogHandler
from scrapy.crawler import CrawlerProcess

PATHS = ("/surrogate.html", "/koi8.html")


def routes() -> dict:
    return {
        "/surrogate.html": surrogate_page().encode("utf-8"),
        "/koi8.html": (russian_page().encode("koi8_r"), {"Content-Type": "text/html"}),
    }


class PagesSpider(scrapy.Spider):
    """One item per page: its URL and the title as the spider itself reads it."""

    name = "charsets"

    def __init__(self, port: str, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.port = port
        self.logged: list = []

    async def start(self):
        for path in PATHS:
            yield scrapy.Request(f"http://127.0.0.1:{self.port}{path}")

    def parse(self, response):
        yield {"url": response.url, "spider_title": response.css("title::text").get()}


def main(port: str, out: Path) -> dict:
    process = CrawlerProcess(BASE_SETTINGS)
    logging.getLogger("scrapy_boilerplate").setLevel(logging.DEBUG)
    logging.getLogger().addHandler(SpiderLogHandler(logging.DEBUG))
    settings = {
        "ADDONS": {"scrapy_boilerplate.Addon": 0},
        "BOILERPLATE_DETECT_CHARSET": True,
        "BOILERPLATE_METADATA_FIELDS": True,
        "BOILERPLATE_OVERVIEW_ACTION": "off",
        "FEEDS": {
            str(out / "items.jsonl"): {"format": "jsonlines", "encoding": "utf-8"},
            str(out / "items.csv"): {"format": "csv", "encoding": "utf-8"},
        },
    }
    crawler = process.create_crawler(type("charsets_spider", (PagesSpider,), {"custom_settings": settings}))
    process.crawl(crawler, port=port)
    process.start()
    return {"stats": crawler.stats.get_stats(), "log": crawler.spider.logged}


if __name__ == "__main__":
    output = Path(sys.argv[2])
    result = main(sys.argv[1], output)
    (output / "crawl.json").write_text(json.dumps(result, default=str), encoding="utf-8")
