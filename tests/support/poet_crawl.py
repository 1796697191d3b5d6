"""Crawls with this project's web-poet page objects, printed as JSON (run in a child process).

    python tests/support/poet_crawl.py MODE START_URL SETTINGS_JSON

MODE:
- ``article``: a plain scrapy-poet spider that follows the start page's links and asks for an
  ``Article`` in its callback (``async def parse(self, response: DummyResponse, article: Article)``);
- ``page``: the same, asking for the page object itself (``BoilerplateArticlePage``) and the
  response, and yielding the page's item with the text ``extract()`` gives for the response;
- ``templates``: zyte-spider-templates' ``article`` spider (``-a url=START_URL``), with the add-ons a
  project enables (docs/zyte.md).

Output: the items (as dicts), the stats, and every connection the process tried to open to a
host that is not the loopback one (an audit hook, set when the crawl starts, sees each ``socket.connect`` and
``socket.getaddrinfo``): nothing may reach the network.
"""

from __future__ import annotations

import json
import sys

import attrs
import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy_poet import DummyResponse
from zyte_common_items import Article

from scrapy_boilerplate import extract
from scrapy_boilerplate.poet import BoilerplateArticlePage

LOOPBACK = ("127.0.0.1", "::1", "localhost")
outside: list[str] = []


def _audit(event: str, args: tuple) -> None:
    if event == "socket.connect":
        address = args[1]
        host = address[0] if isinstance(address, tuple) else str(address)
        if host not in LOOPBACK and not str(host).startswith("/"):
            outside.append(f"connect {host}")
    elif event == "socket.getaddrinfo" and args[0] not in LOOPBACK:
        outside.append(f"getaddrinfo {args[0]}")


ADDONS = {"scrapy_poet.Addon": 300, "zyte_common_items.Addon": 400, "scrapy_boilerplate.poet.Addon": 500}


def _plain(item) -> dict:
    return attrs.asdict(item) if attrs.has(type(item)) else dict(item)


class ArticlesSpider(scrapy.Spider):
    name = "poet_articles"

    def __init__(self, url: str, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [url]

    def parse(self, response):
        yield from response.follow_all(css="a", callback=self.parse_article)

    async def parse_article(self, response: DummyResponse, article: Article):
        yield article


class PagesSpider(ArticlesSpider):
    name = "poet_pages"

    def parse(self, response):
        yield from response.follow_all(css="a", callback=self.parse_page)

    async def parse_page(self, response: scrapy.http.Response, page: BoilerplateArticlePage):
        article = await page.to_item()
        yield {"article": _plain(article), "extract_text": extract(response.text, url=response.url).text}


def main(mode: str, url: str, settings: dict) -> dict:
    sys.addaudithook(_audit)  # from here on: the crawl
    items: list[dict] = []

    class Collect:
        def process_item(self, item, spider=None):
            items.append(_plain(item))
            return item

    common = {
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "CONCURRENT_REQUESTS": 4,
        "ITEM_PIPELINES": {Collect: 900},
        "ADDONS": dict(ADDONS),
    }
    if mode == "templates":
        common["ADDONS"]["zyte_spider_templates.Addon"] = 1000
        common["SPIDER_MODULES"] = ["zyte_spider_templates.spiders"]
        common["CLOSESPIDER_TIMEOUT_NO_ITEM"] = 0
    common.update(settings)
    process = CrawlerProcess(common)
    if mode == "templates":
        crawler = process.create_crawler("article")
        process.crawl(crawler, url=url)
    else:
        crawler = process.create_crawler(PagesSpider if mode == "page" else ArticlesSpider)
        process.crawl(crawler, url=url)
    process.start()
    stats = {k: v for k, v in crawler.stats.get_stats().items() if isinstance(v, int | float | str)}
    return {"items": items, "stats": stats, "outside": outside}


if __name__ == "__main__":
    json.dump(main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3])), sys.stdout, default=str)
