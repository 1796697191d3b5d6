"""ArticleSpider.article_item on real pages: what makes an item, and one item per article."""

from __future__ import annotations

import pytest
from conftest import site_page
from scrapy.http import HtmlResponse, Request
from scrapy.utils.test import get_crawler

from scrapy_boilerplate.crawl.response_pages import response_page
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
    spider = ArticleSpider.from_crawler(get_crawler(ArticleSpider), url=SITE)
    items = []
    for member in POSTS:
        folder = SITE + member[: -len("index.html")]
        for url in (folder, folder + "index.html"):
            page = response(member, url)
            items.append(spider.article_item(page, response_page(page)))
    first, first_again, second, second_again = items
    assert first is not None and second is not None
    assert first["title"] != second["title"]
    assert first_again is None and second_again is None
