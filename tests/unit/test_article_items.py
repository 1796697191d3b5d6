"""ArticleSpider's items on real pages, as its crawl makes them: the spider tells a post
(presented_as_post), MainContentPipeline fills the item in and drops a copy (the spider's defaults
of the duplicates settings, ARTICLE_DUPLICATES_DEFAULTS)."""

from __future__ import annotations

import asyncio

import pytest
from conftest import site_page
from scrapy.exceptions import DropItem
from scrapy.http import HtmlResponse, Request
from scrapy.utils.test import get_crawler

from scrapy_boilerplate.crawl.response_pages import response_page
from scrapy_boilerplate.middlewares import ItemResponseMiddleware
from scrapy_boilerplate.pipelines import MainContentPipeline
from scrapy_boilerplate.spiders import META_TEASED, ArticleSpider

SITE = "http://blog.mylittlepwnage.com/"
POSTS = (
    "2009/01/12/and-then-suddenly-we-all-felt-competent-again/index.html",
    "2009/02/16/escape-from-city-17/index.html",
)


def response(member: str, url: str) -> HtmlResponse:
    html = site_page("mylittlepwnage", member)
    if html is None:
        pytest.skip("../shared/sites/mylittlepwnage not found")
    request = Request(url, meta={META_TEASED: True})
    return HtmlResponse(url, body=html, encoding="utf-8", request=request)


def test_two_short_posts_with_the_same_text_are_two_items_one_post_under_two_urls_one():
    # WordPress posts of a picture and a line: the extraction gives both the same text (the
    # blog's tagline and sidebar words); their titles differ. The same post under "x/" and
    # "x/index.html" (a sitemap and a link) stays one item.
    crawler = get_crawler(ArticleSpider, {"ITEM_PIPELINES": {MainContentPipeline: 100}})
    spider = crawler.spider = crawler._create_spider(url=SITE)
    sources = ItemResponseMiddleware(crawler)
    pipeline = MainContentPipeline(crawler)

    async def crawl() -> list:
        out = []
        for member in POSTS:
            folder = SITE + member[: -len("index.html")]
            for url in (folder, folder + "index.html"):
                page = response(member, url)
                assert await spider.presented_as_post(page, response_page(page))
                item = {"url": url}
                sources.get_processed_item(item, page)
                try:
                    out.append(await pipeline.process_item(item))
                except DropItem:
                    out.append(None)
        return out

    first, first_again, second, second_again = asyncio.run(crawl())
    assert first is not None and second is not None
    assert first["title"] != second["title"] and first["text"] == second["text"]
    assert first_again is None and second_again is None
