"""Crawl a whole site and yield one item per page.

The spider knows nothing about articles or overview pages: scrapy_boilerplate
(enabled in settings.py) drops the items of home and section pages while their
links are still followed, and writes the main text into every other item.

    scrapy crawl articles                               # the bundled site, offline
    scrapy crawl articles -a start_url=https://...      # a real site
"""

from __future__ import annotations

from urllib.parse import urlsplit

import scrapy
from scrapy import signals
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

from courier.items import Article
from courier.localsite import LocalSite


class ArticlesSpider(CrawlSpider):
    name = "articles"
    rules = (Rule(LinkExtractor(), callback="parse_page", follow=True),)

    def __init__(self, start_url: str | None = None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.site = None
        if not start_url:
            self.site = LocalSite()
            start_url = self.site.url
        self.start_url = start_url
        # Stay on the start URL's host (OffsiteMiddleware ignores the port).
        self.allowed_domains = [urlsplit(start_url).hostname]

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.stop_site, signal=signals.spider_closed)
        return spider

    def stop_site(self) -> None:
        if self.site is not None:
            self.site.close()

    async def start(self):
        yield scrapy.Request(self.start_url)

    def parse_start_url(self, response):
        # The start page is a page like any other: items from it go through the same filter.
        return self.parse_page(response)

    def parse_page(self, response):
        if not hasattr(response, "css"):
            return  # an image, a PDF...
        title = response.css("h1::text").get() or response.css("title::text").get()
        yield Article(url=response.url, title=title.strip() if title else None)
