"""ArticleSpider crawls of the small blog of links_crawl.py, printed as JSON.

    python tests/support/articles_crawl.py BASE_URL '{"name": {spider arguments}}'

A crawl's spider arguments may give it its own ``url`` (instead of BASE_URL) and ``settings`` (a
dict, over the spider's own). Output per crawl: the items and the paths fetched, in order
(CONCURRENT_REQUESTS = 1), and the stats.

Its BlogArticles spider also runs on its own: ``scrapy runspider articles_crawl.py -a url=...``.
"""

from __future__ import annotations

import json
import sys

from crawl_items import Collector
from scrapy import signals
from scrapy.crawler import CrawlerProcess

from scrapy_boilerplate.spiders import ArticleSpider


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
        spidercls = type(
            f"{name}_articles", (BlogArticles,), {"custom_settings": {**BlogArticles.custom_settings, **settings}}
        )
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
