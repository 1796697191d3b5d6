"""ArticleSpider crawls of the small blog of links_crawl.py, printed as JSON.

    python tests/support/articles_crawl.py BASE_URL '{"name": {spider arguments}}'

A crawl's spider arguments may give it its own ``url`` (instead of BASE_URL), ``settings`` (a
dict, over the spider's own) and ``spider``: ``"crawl"`` runs BlogPages instead (a follow-everything
CrawlSpider with the add-on, an item per page), to set ArticleSpider beside it. Output per crawl: the items and the paths fetched, in order
(CONCURRENT_REQUESTS = 1), and the stats.

Its BlogArticles spider also runs on its own: ``scrapy runspider articles_crawl.py -a url=...``.
"""

from __future__ import annotations

import json
import sys

from crawl_items import Collector
from scrapy import signals
from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

from scrapy_boilerplate.spiders import ArticleSpider


# Before BlogArticles: `scrapy runspider` runs the last spider class of the file.
class BlogPages(CrawlSpider):
    """What a project without ArticleSpider writes: every page an item, the add-on fills it in."""

    name = "blog_pages"
    custom_settings = {
        "ADDONS": {"scrapy_boilerplate.Addon": 0},
        "CONCURRENT_REQUESTS": 1,
        "ITEM_PIPELINES": {Collector: 900},
        "ROBOTSTXT_OBEY": False,
    }
    rules = (Rule(LinkExtractor(), callback="parse_page", follow=True),)

    def __init__(self, *args, url: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.start_urls = [url]
        self.collected: list = []
        self.fetched: list = []

    def parse_start_url(self, response):
        return self.parse_page(response)

    def parse_page(self, response):
        yield {"url": response.url}


class BlogArticles(ArticleSpider):
    name = "blog_articles"
    custom_settings = {"CONCURRENT_REQUESTS": 1, "ITEM_PIPELINES": {Collector: 900}, "ROBOTSTXT_OBEY": False}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.collected: list = []
        self.fetched: list = []


def main(base_url: str, specs: dict) -> dict:
    process = CrawlerProcess({"LOG_LEVEL": "WARNING", "TELNETCONSOLE_ENABLED": False, "REMOTE_CONTROL_ENABLED": False})
    crawlers = {}

    def fetched(response, request, spider):
        spider.fetched.append(response.url)

    for name, kwargs in specs.items():
        kwargs = {"url": base_url, **kwargs}
        settings = kwargs.pop("settings", {})
        base = BlogPages if kwargs.pop("spider", None) == "crawl" else BlogArticles
        spidercls = type(f"{name}_spider", (base,), {"custom_settings": {**base.custom_settings, **settings}})
        crawler = crawlers[name] = process.create_crawler(spidercls)
        crawler.signals.connect(fetched, signal=signals.response_received)
        process.crawl(crawler, **kwargs)
    process.start()
    return {
        name: {"items": c.spider.collected, "fetched": c.spider.fetched, "stats": c.stats.get_stats()}
        for name, c in crawlers.items()
    }


if __name__ == "__main__":
    json.dump(main(sys.argv[1], json.loads(sys.argv[2])), sys.stdout, default=str)
