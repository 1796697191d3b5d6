"""Crawl a small site on two hosts (127.0.0.1 and localhost, one loopback server) with
BOILERPLATE_SITE_RULES, once per executor, and print what the crawls produced, as JSON.

    python tests/support/site_rules_crawl.py PORT SPECS_JSON OUTPUT_JSON

SPECS_JSON maps a crawl name to the settings the spider gets (custom_settings). The output
maps each name to {"items", "stats", "log"} (tests/support/pipeline_crawl.py collects them).
"""

from __future__ import annotations

import json
import logging
import sys

import scrapy
from pipeline_crawl import BASE_SETTINGS, Collector, SpiderLogHandler
from scrapy.crawler import CrawlerProcess

#: The site's pages: two of one template, and one of a newer template without its content element.
PATHS = ("/story/1.html", "/story/2.html", "/story/new.html")
STORY = " ".join(["The harbour board agreed on Monday to rebuild the old pier before the summer."] * 6)
#: A promo written as prose, which the model keeps as part of the story (a short call to action
#: such as "Download our app" it leaves out alone): the site rule is what keeps this one out.
PROMO = (
    "Our app brings every story of the harbour to your phone, with the tides, the ferry times and the "
    "weather of the coast, before anyone else reads them, for two dollars a month."
)


def story_page(n: str, content_class: str = "story") -> bytes:
    return f"""<html><head><title>Pier story {n}</title></head><body>
<nav><a href="/">Home</a> <a href="/story/">Stories</a> <a href="/about">About</a></nav>
<div class="{content_class}"><h1>Pier story {n}</h1><p>{STORY} {n}</p>
<div class="promo"><p>{PROMO}</p></div><p>{STORY} END{n}</p></div>
<footer><p>Copyright 2026 The Harbour Post</p></footer></body></html>""".encode()


def routes() -> dict:
    return {
        "/story/1.html": story_page("1"),
        "/story/2.html": story_page("2"),
        "/story/new.html": story_page("new", content_class="article-text"),
    }


class HostsSpider(scrapy.Spider):
    """Requests every page of the site on both hosts; one item per page."""

    name = "hosts"

    def __init__(self, port: str, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.port = port
        self.logged: list = []

    async def start(self):
        for host in ("127.0.0.1", "localhost"):
            for path in PATHS:
                yield scrapy.Request(f"http://{host}:{self.port}{path}")

    def parse(self, response):
        yield {"url": response.url}


def main(port: str, specs: dict) -> dict:
    process = CrawlerProcess(BASE_SETTINGS)
    logging.getLogger("scrapy_boilerplate").setLevel(logging.DEBUG)
    logging.getLogger().addHandler(SpiderLogHandler(logging.DEBUG))
    crawlers = {}
    for name, settings in specs.items():
        spidercls = type(
            f"{name}_spider", (HostsSpider,), {"custom_settings": {**settings, "ITEM_PIPELINES": {Collector: 1000}}}
        )
        crawlers[name] = crawler = process.create_crawler(spidercls)
        process.crawl(crawler, port=port)
    process.start()
    return {
        name: {
            "items": getattr(crawler.spider, "collected", []),
            "stats": crawler.stats.get_stats(),
            "log": crawler.spider.logged,
        }
        for name, crawler in crawlers.items()
    }


if __name__ == "__main__":
    result = main(sys.argv[1], json.loads(sys.argv[2]))
    with open(sys.argv[3], "w", encoding="utf-8") as output:
        json.dump(result, output, default=str)
