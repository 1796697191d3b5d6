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
    h = Harness(
        BOILERPLATE_HTML_FIELD="html",
        BOILERPLATE_DUPLICATES="flag",
        BOILERPLATE_DUPLICATE_OF_FIELD="first",
        BOILERPLATE_DUPLICATES_MIN_WORDS=20,
    )
    article, other = site_file(ARTICLE).decode(), site_file(OTHER).decode()
    items = judge(
        h,
        [
            {"url": "https://a.example/1", "html": article},
            {"url": "https://b.example/1", "html": other},
            {"url": "https://c.example/print/1", "html": article.replace("<body>", "<body><p>Print</p>")},
            {"html": article},
        ],
    )  # no URL: not judged
    assert [item["first"] for item in items] == [None, None, "https://a.example/1", None]
    assert h.stats["boilerplate/duplicates/judged"] == 3
    assert h.stats["boilerplate/duplicates/copies"] == 1


def test_drop_raises_dropitem_naming_the_first():
    h = Harness(BOILERPLATE_HTML_FIELD="html", BOILERPLATE_DUPLICATES="drop", BOILERPLATE_DUPLICATES_MIN_WORDS=20)
    article = site_file(ARTICLE).decode()
    first, copy = judge(h, [{"url": SITE + "/a", "html": article}, {"url": SITE + "/b", "html": article}])
    assert first["main_text"]
    assert isinstance(copy, DropItem) and f"Duplicate of {SITE}/a" in str(copy)
    assert copy.log_level == "INFO"
    assert h.stats["boilerplate/duplicates/dropped"] == 1 and h.stats["boilerplate/duplicates/exact"] == 1


def test_with_the_title_one_text_under_two_headlines_is_no_copy():
    """BOILERPLATE_DUPLICATES_TITLE: the headline is judged with the text (ArticleSpider's
    default: a blog's posts that are an image and a line of its template have one text)."""
    article = site_file(ARTICLE).decode()
    retitled = article.replace("<title>", "<title>Another post: ").replace("<h1>", "<h1>Another post: ", 1)
    pages = [
        {"url": SITE + "/a", "html": article},
        {"url": SITE + "/b", "html": retitled},
        {"url": SITE + "/c", "html": article},
    ]
    settings = {"BOILERPLATE_HTML_FIELD": "html", "BOILERPLATE_DUPLICATES": "drop", "BOILERPLATE_TITLE_FIELD": "t"}
    exact = {**settings, "BOILERPLATE_DUPLICATES_THRESHOLD": 1.0}
    first, other, copy = judge(Harness(**exact, BOILERPLATE_DUPLICATES_TITLE=True), [dict(p) for p in pages])
    assert first["t"] != other["t"] and other["main_text"] == first["main_text"]
    assert isinstance(copy, DropItem) and f"Duplicate of {SITE}/a" in str(copy)
    # Without it, the second post is a copy of the first.
    _, other, _ = judge(Harness(**exact), [dict(p) for p in pages])
    assert isinstance(other, DropItem)


def test_off_adds_nothing():
    h = Harness(BOILERPLATE_HTML_FIELD="html")
    article = site_file(ARTICLE).decode()
    items = judge(h, [{"url": "u1", "html": article}, {"url": "u2", "html": article}])
    assert h.pipeline.duplicates is None
    assert all(set(item) == {"url", "html", "main_text"} for item in items)


def test_redis_store_without_the_package_stops_the_crawl(no_redis_package):
    with pytest.raises(bp.SettingError, match=r"BOILERPLATE_DUPLICATES_STORE.*pip install"):
        Harness(BOILERPLATE_DUPLICATES="drop", BOILERPLATE_DUPLICATES_STORE="redis://127.0.0.1:1/0")


class SlowStore:
    """A Redis store that answers after `delay` seconds (a slow or distant Redis), or fails."""

    def __init__(self, store, delay: float, error: Exception | None = None):
        self.store, self.delay, self.error = store, delay, error

    def find_or_add(self, *args):
        import time

        time.sleep(self.delay)
        if self.error is not None:
            raise self.error
        return self.store.find_or_add(*args)

    def where(self):
        return self.store.where()

    def close(self):
        self.store.close()


def run_with_ticker(h: Harness, items: list) -> tuple[list, float]:
    """The items through the pipeline at once while a ticker runs on the event loop (as other
    requests would): the results and the longest the loop was held between two ticks."""

    async def go():
        gaps, stop = [], asyncio.Event()

        async def ticker():
            loop = asyncio.get_running_loop()
            last = loop.time()
            while not stop.is_set():
                await asyncio.sleep(0.01)
                gaps.append(loop.time() - last)
                last = loop.time()

        task = asyncio.ensure_future(ticker())
        await asyncio.sleep(0.05)
        out = []
        for item in items:  # one after the other: the first is remembered before the copy comes
            out.append(await h.pipeline.process_item(item))
        stop.set()
        await task
        return out, max(gaps)

    try:
        return asyncio.run(go())
    finally:
        h.close()


@pytest.fixture
def slow_redis(redis_server, monkeypatch):
    """The pipeline's Redis duplicates store wrapped in a SlowStore: returns the wrapper's settings."""
    from scrapy_boilerplate.crawl import duplicates as module

    real = module.store_from_settings
    made = {}

    def slow(settings, *args):
        made["store"] = SlowStore(real(settings, *args), **made["options"])
        return made["store"]

    monkeypatch.setattr(module, "store_from_settings", slow)
    return made


def test_a_slow_redis_does_not_hold_the_reactor(redis_server, slow_redis):
    slow_redis["options"] = {"delay": 1.5}
    h = Harness(
        BOILERPLATE_HTML_FIELD="html",
        BOILERPLATE_EXECUTOR="thread",
        BOILERPLATE_DUPLICATES="flag",
        BOILERPLATE_DUPLICATE_OF_FIELD="first",
        BOILERPLATE_DUPLICATES_MIN_WORDS=20,
        BOILERPLATE_DUPLICATES_STORE=redis_server.url,
    )
    article = site_file(ARTICLE).decode()
    items, held = run_with_ticker(h, [{"url": SITE + "/a", "html": article}, {"url": SITE + "/b", "html": article}])
    assert [item["first"] for item in items] == [None, SITE + "/a"]
    # Before: held for the whole delay, each item. The bound leaves room for a loaded machine.
    assert held < 0.75, f"the event loop was held {held:.2f} s by a store answering in 1.5 s"


def test_a_failing_store_leaves_the_item_going_on(redis_server, slow_redis, caplog):
    slow_redis["options"] = {"delay": 0.0, "error": RuntimeError("store broke")}
    h = Harness(
        BOILERPLATE_HTML_FIELD="html",
        BOILERPLATE_DUPLICATES="drop",
        BOILERPLATE_DUPLICATE_OF_FIELD="first",
        BOILERPLATE_DUPLICATES_MIN_WORDS=20,
        BOILERPLATE_DUPLICATES_STORE=redis_server.url,
    )
    article = site_file(ARTICLE).decode()
    items = judge(h, [{"url": SITE + "/a", "html": article}, {"url": SITE + "/b", "html": article}])
    assert [item["first"] for item in items] == [None, None]  # not judged, not lost, not dropped
    assert h.stats["boilerplate/duplicates/unavailable"] == 2
    assert "Duplicates: the store redis://127.0.0.1" in caplog.text
