"""MainContentPipeline with BOILERPLATE_DUPLICATES, as Scrapy builds it (get_crawler); the real
crawls are in tests/crawl/test_duplicates_crawl.py."""

from __future__ import annotations

import asyncio

import pytest
from scrapy.exceptions import DropItem
from test_pipeline import ARTICLE, OTHER, SITE, Harness, site_file

from scrapy_boilerplate import settings as bp


def judge(h: Harness, items: list) -> list:
    """Each item through the pipeline in turn: the item, or the DropItem raised."""
    async def go():
        out = []
        for item in items:
            try:
                out.append(await h.pipeline.process_item(item))
            except DropItem as exc:
                out.append(exc)
        return out
    try:
        return asyncio.run(go())
    finally:
        h.close()


def test_items_with_their_html_are_keyed_by_their_url_field():
    h = Harness(BOILERPLATE_HTML_FIELD="html", BOILERPLATE_DUPLICATES="flag",
                BOILERPLATE_DUPLICATE_OF_FIELD="first", BOILERPLATE_DUPLICATES_MIN_WORDS=20)
    article, other = site_file(ARTICLE).decode(), site_file(OTHER).decode()
    items = judge(h, [{"url": "https://a.example/1", "html": article},
                      {"url": "https://b.example/1", "html": other},
                      {"url": "https://c.example/print/1", "html": article.replace("<body>", "<body><p>Print</p>")},
                      {"html": article}])   # no URL: not judged
    assert [item["first"] for item in items] == [None, None, "https://a.example/1", None]
    assert h.stats["boilerplate/duplicates/judged"] == 3
    assert h.stats["boilerplate/duplicates/copies"] == 1


def test_drop_raises_dropitem_naming_the_first():
    h = Harness(BOILERPLATE_HTML_FIELD="html", BOILERPLATE_DUPLICATES="drop",
                BOILERPLATE_DUPLICATES_MIN_WORDS=20)
    article = site_file(ARTICLE).decode()
    first, copy = judge(h, [{"url": SITE + "/a", "html": article}, {"url": SITE + "/b", "html": article}])
    assert first["main_text"]
    assert isinstance(copy, DropItem) and f"Duplicate of {SITE}/a" in str(copy)
    assert copy.log_level == "INFO"
    assert h.stats["boilerplate/duplicates/dropped"] == 1 and h.stats["boilerplate/duplicates/exact"] == 1


def test_off_adds_nothing():
    h = Harness(BOILERPLATE_HTML_FIELD="html")
    article = site_file(ARTICLE).decode()
    items = judge(h, [{"url": "u1", "html": article}, {"url": "u2", "html": article}])
    assert h.pipeline.duplicates is None
    assert all(set(item) == {"url", "html", "main_text"} for item in items)


def test_redis_store_without_the_package_stops_the_crawl(no_redis_package):
    with pytest.raises(bp.SettingError, match=r"BOILERPLATE_DUPLICATES_STORE.*pip install"):
        Harness(BOILERPLATE_DUPLICATES="drop", BOILERPLATE_DUPLICATES_STORE="redis://127.0.0.1:1/0")
